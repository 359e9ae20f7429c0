-- What a SQL client pays for the declared-key checks: about 2.25 M instructions to prepare one upsert
-- into `defaults`, down from 12 M (callgrind, the `sqlite3` shell, `INSERT … ON CONFLICT DO
-- UPDATE`; 1.7 M before 0010). Every check is as strict as before, on every SQLite from 3.34,
-- `trusted_schema = OFF` included; the messages are the same.
--
-- SQLite compiles a trigger's program, and the program of every trigger a statement in it fires
-- (the INSTEAD OF triggers of the views below), while it prepares the statement that fires them,
-- whatever their WHEN clauses will say: each expression node of each body is copied, resolved and
-- coded, one allocation at a time. A statement a client prepares once per write pays that every
-- write. Three things made 0010's checks cost 11 M of the 12:
--
--   * the JSON validator, 80 lines of state machine written out as expressions in a recursive
--     CTE (9 M). It is now a table, `defaults_json_grammar`: each row one step (a state and the
--     byte read → the next state, what it does to the stack of open arrays and objects, whether
--     it consumes the byte), and the CTE a few lines that look the next step up. Rows cost
--     nothing to compile. The grammar is the same (RFC 8259, at most 1,000 levels deep, no NUL
--     byte, a lone surrogate escape accepted; StrictJSON in Swift, checked against this by
--     StrictJSONTests); it reads a byte at a time, strings included (about 1.6 µs a byte, 0.2 s for
--     a 117 KB document from the shell).
--   * the value judgements, read through views that join `defaults_schema` with `defaults` and
--     decide the storage class with an eight-way CASE (2 M): the check now judges the row being
--     written directly, the storage classes a declared type accepts are one string, and the
--     refusal is one expression whose NULL means "accepted" (json_each, which raises it, runs only
--     for a refusal: opening it for every declared write cost 12 allocations).
--   * an upsert fires both the AFTER INSERT and the AFTER UPDATE triggers, and SQLite compiled the
--     checks for each, because it keeps one compiled program per trigger and conflict policy and
--     the two paths differ in policy. The two triggers now write `INSERT OR ABORT` (ABORT is every
--     statement's default, so nothing behaves differently), and the check's program is compiled
--     once per statement.
--
-- The views `defaults_value_judgements`, `defaults_default_judgements`, `defaults_judgements` and
-- the `…_violations` views stay, for operators and for declaring a key (`defaults_schema_check`,
-- which a client runs rarely). The log triggers of 0008 and 0012 are unchanged (0.65 M of the 2).

CREATE TABLE defaults_json_grammar (
    state   TEXT NOT NULL,
    -- The byte read (a one-byte BLOB), X'' for the end of the text, or the TEXT '*' for any byte
    -- this state has no row of its own for.
    ch      NOT NULL,
    -- What the innermost open container must be for this step: 'o' an object, 'a' an array,
    -- '#' none (the top level), '*' any.
    top     TEXT NOT NULL,
    next    TEXT NOT NULL,
    -- 'o' or 'a' opens a container, '-' closes the innermost, '' leaves the stack alone.
    stack   TEXT NOT NULL,
    -- 1: the byte is consumed; 0: the byte that ends a number is read again as what follows a value.
    advance INTEGER NOT NULL,
    PRIMARY KEY (state, ch, top)
) WITHOUT ROWID;

-- The rules, a character set per row, spread to one row per byte.
WITH RECURSIVE
    rule(state, chars, top, next, stack, advance) AS (VALUES
        -- a value: at the start, after ':' and after ',' in an array
        ('value', ' ' || char(9, 10, 13), '*', 'value', '', 1),
        ('value', '{', '*', 'object', 'o', 1),
        ('value', '[', '*', 'array', 'a', 1),
        ('value', '"', '*', 'string', '', 1),
        ('value', 't', '*', 't', '', 1), ('t', 'r', '*', 'tr', '', 1), ('tr', 'u', '*', 'tru', '', 1), ('tru', 'e', '*', 'after', '', 1),
        ('value', 'f', '*', 'f', '', 1), ('f', 'a', '*', 'fa', '', 1), ('fa', 'l', '*', 'fal', '', 1), ('fal', 's', '*', 'fals', '', 1), ('fals', 'e', '*', 'after', '', 1),
        ('value', 'n', '*', 'n', '', 1), ('n', 'u', '*', 'nu', '', 1), ('nu', 'l', '*', 'nul', '', 1), ('nul', 'l', '*', 'after', '', 1),
        ('value', '-', '*', 'minus', '', 1),
        ('value', '0', '*', 'zero', '', 1),
        ('value', '123456789', '*', 'integer', '', 1),
        -- after '[': a value or ']'
        ('array', ' ' || char(9, 10, 13), '*', 'array', '', 1),
        ('array', ']', 'a', 'after', '-', 1),
        ('array', '{', '*', 'object', 'o', 1),
        ('array', '[', '*', 'array', 'a', 1),
        ('array', '"', '*', 'string', '', 1),
        ('array', 't', '*', 't', '', 1), ('array', 'f', '*', 'f', '', 1), ('array', 'n', '*', 'n', '', 1),
        ('array', '-', '*', 'minus', '', 1), ('array', '0', '*', 'zero', '', 1), ('array', '123456789', '*', 'integer', '', 1),
        -- after '{': a key or '}'; after ',' in an object: a key; after a key: ':'
        ('object', ' ' || char(9, 10, 13), '*', 'object', '', 1),
        ('object', '}', 'o', 'after', '-', 1),
        ('object', '"', '*', 'key', '', 1),
        ('member', ' ' || char(9, 10, 13), '*', 'member', '', 1),
        ('member', '"', '*', 'key', '', 1),
        ('colon', ' ' || char(9, 10, 13), '*', 'colon', '', 1),
        ('colon', ':', '*', 'value', '', 1),
        -- after a value
        ('after', ' ' || char(9, 10, 13), '*', 'after', '', 1),
        ('after', ',', 'o', 'member', '', 1),
        ('after', ',', 'a', 'value', '', 1),
        ('after', '}', 'o', 'after', '-', 1),
        ('after', ']', 'a', 'after', '-', 1),
        -- numbers; the byte that ends one is read again as what follows a value
        ('minus', '0', '*', 'zero', '', 1),
        ('minus', '123456789', '*', 'integer', '', 1),
        ('zero', '.', '*', 'point', '', 1), ('zero', 'eE', '*', 'exponent', '', 1), ('zero', '*', '*', 'after', '', 0),
        ('integer', '0123456789', '*', 'integer', '', 1), ('integer', '.', '*', 'point', '', 1),
        ('integer', 'eE', '*', 'exponent', '', 1), ('integer', '*', '*', 'after', '', 0),
        ('point', '0123456789', '*', 'fraction', '', 1),
        ('fraction', '0123456789', '*', 'fraction', '', 1), ('fraction', 'eE', '*', 'exponent', '', 1),
        ('fraction', '*', '*', 'after', '', 0),
        ('exponent', '+-', '*', 'sign', '', 1), ('exponent', '0123456789', '*', 'power', '', 1),
        ('sign', '0123456789', '*', 'power', '', 1),
        ('power', '0123456789', '*', 'power', '', 1), ('power', '*', '*', 'after', '', 0),
        -- strings and keys: any character but a control character, '"' and '\'
        ('string', '"', '*', 'after', '', 1), ('string', '\', '*', 'escape', '', 1), ('string', '*', '*', 'string', '', 1),
        ('escape', '"\/bfnrt', '*', 'string', '', 1), ('escape', 'u', '*', 'u1', '', 1),
        ('u1', '0123456789abcdefABCDEF', '*', 'u2', '', 1), ('u2', '0123456789abcdefABCDEF', '*', 'u3', '', 1),
        ('u3', '0123456789abcdefABCDEF', '*', 'u4', '', 1), ('u4', '0123456789abcdefABCDEF', '*', 'string', '', 1),
        ('key', '"', '*', 'colon', '', 1), ('key', '\', '*', 'key escape', '', 1), ('key', '*', '*', 'key', '', 1),
        ('key escape', '"\/bfnrt', '*', 'key', '', 1), ('key escape', 'u', '*', 'key u1', '', 1),
        ('key u1', '0123456789abcdefABCDEF', '*', 'key u2', '', 1), ('key u2', '0123456789abcdefABCDEF', '*', 'key u3', '', 1),
        ('key u3', '0123456789abcdefABCDEF', '*', 'key u4', '', 1), ('key u4', '0123456789abcdefABCDEF', '*', 'key', '', 1),
        ('string', char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31), '*', 'refused', '', 1),
        ('key', char(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31), '*', 'refused', '', 1)
    ),
    one(state, rest, ch, top, next, stack, advance) AS (
        SELECT state, chars, NULL, top, next, stack, advance FROM rule
        UNION ALL
        SELECT state, CASE WHEN rest = '*' THEN '' ELSE substr(rest, 2) END, CASE WHEN rest = '*' THEN '*' ELSE CAST(substr(rest, 1, 1) AS BLOB) END,
            top, next, stack, advance FROM one WHERE rest <> ''
    )
INSERT INTO defaults_json_grammar(state, ch, top, next, stack, advance)
SELECT state, ch, top, next, stack, advance FROM one WHERE ch IS NOT NULL
UNION ALL
-- the end of the text: after a whole value at the top level
VALUES ('after', X'', '#', 'valid', '', 1), ('string', X'', '*', 'refused', '', 1), ('key', X'', '*', 'refused', '', 1), ('zero', X'', '*', 'after', '', 0), ('integer', X'', '*', 'after', '', 0),
    ('fraction', X'', '*', 'after', '', 0), ('power', X'', '*', 'after', '', 0);

DROP TRIGGER defaults_json_validate;
CREATE TRIGGER defaults_json_validate INSTEAD OF INSERT ON defaults_json_validate
BEGIN
    -- This library's connections judge with the same grammar in Swift (StrictJSON+Connection.swift);
    -- every other client, by walking the grammar: `scan` holds the position, the state and the
    -- stack ('#' then one letter per open container), and the text is valid when a walk ends in
    -- 'valid'. A byte with no step ends the walk.
    SELECT 1 FROM json_each('{}', CASE WHEN CASE WHEN unicode(sqlite_source_id()) = 123
            THEN NOT sqlite_compileoption_used(new.value) ELSE NOT EXISTS (
        WITH RECURSIVE scan(p, s, st) AS (
            SELECT 1, 'value', '#' WHERE instr(CAST(new.value AS BLOB), x'00') = 0
            UNION ALL
            SELECT x.p + g.advance, g.next,
                CASE g.stack WHEN '' THEN x.st WHEN '-' THEN substr(x.st, 1, length(x.st) - 1) ELSE x.st || g.stack END
            FROM scan AS x JOIN defaults_json_grammar AS g ON g.state = x.s AND g.top IN ('*', substr(x.st, -1))
                AND g.ch = coalesce((SELECT h.ch FROM defaults_json_grammar AS h
                    WHERE h.state = x.s AND h.ch = substr(CAST(new.value AS BLOB), x.p, 1)), '*')
            WHERE g.stack IN ('', '-') OR length(x.st) <= 1000
        )
        SELECT 1 FROM scan WHERE s = 'valid') END
        THEN 'declared key "' || new.key || '" is json, so a ' || new.origin || ' that is not valid JSON is refused'
        ELSE '$' END);
END;

-- A write to a declared key (or of a key that is not TEXT): the same refusals as
-- `defaults_value_judgements` gives, judged on the row being written.
DROP TRIGGER defaults_declared_check;
CREATE TRIGGER defaults_declared_check INSTEAD OF INSERT ON defaults_declared_check
BEGIN
    SELECT (SELECT 1 FROM json_each('{}', 'a key of defaults is TEXT, so a ' || typeof(new.key) || ' key is refused'))
        WHERE typeof(new.key) IS NOT 'text';
    -- json_each raises only for a refusal: a write that fits opens no table-valued function.
    SELECT (SELECT 1 FROM json_each('{}', 'declared key "' || j.key || '" is ' || j.type || ', so ' || j.refusal))
    FROM (SELECT s.key, s.type, CASE
            WHEN instr(' bool:integer int:integer double:real double:integer date:real date:integer string:text url:text json:text data:blob ',
                    ' ' || s.type || ':' || typeof(new.value) || ' ') = 0
                THEN 'a ' || typeof(new.value) || ' value is refused'
                    || CASE WHEN new.value IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
            WHEN s.type = 'bool' AND new.value NOT IN (0, 1) THEN 'the value ' || new.value || ' is refused (0 or 1 only)'
            WHEN s.allowed IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(s.allowed) AS a WHERE a.value = CAST(new.value AS TEXT))
                THEN 'the value ' || CAST(new.value AS TEXT) || ' is refused (allowed: ' || s.allowed || ')' END AS refusal
        FROM defaults_schema AS s WHERE s.key = new.key) AS j
    WHERE j.refusal IS NOT NULL;
    INSERT INTO defaults_json_validate(key, origin, value)
        SELECT new.key, 'value', new.value FROM defaults_schema WHERE key = new.key AND type = 'json';
END;

DROP TRIGGER defaults_declared_insert;
CREATE TRIGGER defaults_declared_insert AFTER INSERT ON defaults
WHEN typeof(new.key) IS NOT 'text' OR EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT OR ABORT INTO defaults_declared_check(key, value) VALUES (new.key, new.value);
END;

DROP TRIGGER defaults_declared_update;
CREATE TRIGGER defaults_declared_update AFTER UPDATE ON defaults
WHEN typeof(new.key) IS NOT 'text' OR EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT OR ABORT INTO defaults_declared_check(key, value) VALUES (new.key, new.value);
END;

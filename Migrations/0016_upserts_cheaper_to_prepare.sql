-- What a SQL client pays per upsert, again: 1.56 M instructions to prepare and run one
-- `INSERT … ON CONFLICT DO UPDATE` into `defaults` from the `sqlite3` shell, down from 2.02 M
-- (callgrind, SQLite 3.40.1), and 2,000 separate upserts from one shell 9.1× a bare table, down
-- from 12.4× (0.24 s against 0.33 s, files in /dev/shm). Every check, refusal and sentence is the
-- same, on every SQLite from 3.34, `trusted_schema = OFF` included; nothing the library does
-- changes.
--
-- SQLite compiles every trigger an upsert may fire, and every trigger their bodies fire, when it
-- prepares the upsert (0014 says how). Three bodies are written with fewer nodes:
--
--   * The JSON walk looked each byte up twice: once for a step of its own in the state, and
--     again for the step all other bytes take (`'*'`), through a correlated subquery compiled
--     into every upsert. `defaults_json_steps` spells the '*' steps out for every byte (1,850
--     rows instead of 430, the byte as two hex digits, as `hex()` writes it), so the walk is one
--     join. There is no step for the NUL byte, so a text holding one is refused as before
--     without a separate test. 0.13 M instructions less.
--   * The declared-key check builds its refusal inside a subquery that holds `LIMIT 1` (a
--     declared key has one row), which SQLite does not flatten into the statement around it:
--     flattened, the refusal expression was copied into both places that read it. 0.2 M less.
--     A declared key's write, which runs the check, costs about 4,000 instructions more at run
--     time (the subquery's co-routine; measured with Python's executemany, one prepare).
--   * The log triggers say the same with fewer nodes: an integer or a real cast to a BLOB is
--     never longer than 16,384 bytes, so the size limit needs no storage-class test. 0.06 M less.
--     They keep a copy each: routing both through one INSTEAD OF program would save 0.1 M more
--     but costs every logged write 2,200 instructions at run time (this library's `set`s
--     included), an extra program frame.
CREATE TABLE defaults_json_steps (
    state   TEXT NOT NULL,
    -- The byte read as two upper-case hex digits, or '' for the end of the text.
    ch      TEXT NOT NULL,
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
-- The grammar's own steps (a one-byte BLOB, or X'' for the end), then its '*' steps for every
-- byte but NUL that the state has no step of its own for.
INSERT INTO defaults_json_steps(state, ch, top, next, stack, advance)
    SELECT state, hex(ch), top, next, stack, advance FROM defaults_json_grammar WHERE typeof(ch) = 'blob';
WITH RECURSIVE byte(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM byte WHERE n < 255)
INSERT INTO defaults_json_steps(state, ch, top, next, stack, advance)
    SELECT g.state, printf('%02X', byte.n), g.top, g.next, g.stack, g.advance
    FROM defaults_json_grammar AS g, byte
    WHERE typeof(g.ch) = 'text' AND g.ch = '*'
        AND NOT EXISTS (SELECT 1 FROM defaults_json_grammar AS h
            WHERE h.state = g.state AND typeof(h.ch) = 'blob' AND hex(h.ch) = printf('%02X', byte.n));

DROP TRIGGER defaults_json_validate;
CREATE TRIGGER defaults_json_validate INSTEAD OF INSERT ON defaults_json_validate
WHEN unicode(sqlite_source_id()) IS NOT 123
BEGIN
    -- `scan` holds the position, the state and the stack ('#' then one letter per open
    -- container), and the text is valid when a walk ends in 'valid'. A byte with no step ends
    -- the walk.
    SELECT 1 FROM json_each('{}', CASE WHEN NOT EXISTS (
        WITH RECURSIVE scan(p, s, st) AS (
            SELECT 1, 'value', '#'
            UNION ALL
            SELECT x.p + g.advance, g.next,
                CASE g.stack WHEN '' THEN x.st WHEN '-' THEN substr(x.st, 1, length(x.st) - 1) ELSE x.st || g.stack END
            FROM scan AS x JOIN defaults_json_steps AS g ON g.state = x.s
                AND g.ch = hex(substr(CAST(new.value AS BLOB), x.p, 1)) AND g.top IN ('*', substr(x.st, -1))
            WHERE g.stack IN ('', '-') OR length(x.st) <= 1000
        )
        SELECT 1 FROM scan WHERE s = 'valid')
        THEN 'declared key "' || new.key || '" is json, so a ' || new.origin || ' that is not valid JSON is refused'
        ELSE '$' END);
END;
DROP TABLE defaults_json_grammar;

DROP TRIGGER defaults_declared_check;
CREATE TRIGGER defaults_declared_check INSTEAD OF INSERT ON defaults_declared_check
BEGIN
    SELECT (SELECT 1 FROM json_each('{}', 'a key of defaults is TEXT, so a ' || typeof(new.key) || ' key is refused'))
        WHERE typeof(new.key) IS NOT 'text';
    -- json_each raises only for a refusal: a write that fits opens no table-valued function.
    -- LIMIT 1 keeps the subquery whole, so the refusal is compiled once.
    SELECT (SELECT 1 FROM json_each('{}', j.refusal))
    FROM (SELECT 'declared key "' || s.key || '" is ' || s.type || ', so ' || CASE
            WHEN instr(' bool:integer int:integer double:real double:integer date:real date:integer string:text url:text json:text data:blob ',
                    ' ' || s.type || ':' || typeof(new.value) || ' ') = 0
                THEN 'a ' || typeof(new.value) || ' value is refused'
                    || CASE WHEN new.value IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
            WHEN s.type = 'bool' AND new.value NOT IN (0, 1) THEN 'the value ' || new.value || ' is refused (0 or 1 only)'
            WHEN s.allowed IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(s.allowed) AS a WHERE a.value = CAST(new.value AS TEXT))
                THEN 'the value ' || CAST(new.value AS TEXT) || ' is refused (allowed: ' || s.allowed || ')' END AS refusal
        FROM defaults_schema AS s WHERE s.key = new.key LIMIT 1) AS j
    WHERE j.refusal IS NOT NULL;
    INSERT INTO defaults_json_validate(key, origin, value)
        SELECT new.key, 'value', new.value FROM defaults_schema WHERE key = new.key AND type = 'json';
END;

DROP TRIGGER defaults_log_insert;
CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity, secret)
    SELECT new.key,
        CASE WHEN s.secret = 1 OR length(CAST(new.value AS BLOB)) > 16384 THEN NULL ELSE new.value END,
        CASE WHEN s.secret IS NOT 1 AND length(CAST(new.value AS BLOB)) > 16384 THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END,
        CASE WHEN s.secret = 1 THEN 1 END
    FROM (SELECT 1) LEFT JOIN defaults_schema AS s ON s.key = new.key;
END;

DROP TRIGGER defaults_log_update;
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity, secret)
    SELECT new.key,
        CASE WHEN s.secret = 1 OR length(CAST(new.value AS BLOB)) > 16384 THEN NULL ELSE new.value END,
        CASE WHEN s.secret IS NOT 1 AND length(CAST(new.value AS BLOB)) > 16384 THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END,
        CASE WHEN s.secret = 1 THEN 1 END
    FROM (SELECT 1) LEFT JOIN defaults_schema AS s ON s.key = new.key;
END;

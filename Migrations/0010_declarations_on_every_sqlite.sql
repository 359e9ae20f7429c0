-- Declared keys enforced the same way on every SQLite from 3.34 on, for every client, and keys
-- that are TEXT.
--
-- 0006 checked values with the JSON scalar functions (json_valid, json_type, json_extract).
-- SQLite 3.38 to 3.44 do not mark those functions innocuous, so a client that runs with
-- `PRAGMA trusted_schema = OFF` (hardened clients; some builds make it the default) could not
-- prepare any statement that fires a trigger calling one, nor write `defaults_schema`, whose
-- CHECK constraint called json_valid: "unsafe use of json_valid()", even for an undeclared key.
-- No trigger, view or CHECK reached by a write calls a JSON scalar function any more. The
-- table-valued `json_each` and `json_tree` are innocuous on every version from 3.34 on:
--
--   * allowed values are looked up with json_each, as before;
--   * a refusal is raised by json_each with a malformed path, the one error of an innocuous
--     function that repeats its argument: SQLite 3.34 to 3.44 say "JSON path error near
--     '<sentence>'", 3.45 on "bad JSON path: '<sentence>'"; the sentence names the key and its
--     declared type on every version;
--   * a json key's text is judged by a strict RFC 8259 validator written in SQL (trigger
--     `defaults_json_validate`), for every writer but this library's connections: the same answer
--     on every version (json_valid's depth limit is 2,000 before 3.45 and 1,000 after, and from
--     3.42 the other JSON functions take JSON5), 1,000 levels deep at most, and a refusal that
--     names the key. It reads about 1.5 µs a byte, so this library's own connections run the same
--     grammar in Swift instead (StrictJSON), through `sqlite_compileoption_used(text)`, which
--     they alone override (a function every client has with one argument, so the trigger
--     compiles everywhere). "This library's connection" is the writer identity of 0008
--     (`sqlite_source_id()` beginning with '{'): self-reported, like the history's writer; a
--     client that claims it gets SQLite's own answer to sqlite_compileoption_used, which decides
--     nothing it could not decide by dropping the trigger.
--
-- The library no longer reads SQLite's message at all: it knows the key and the value it wrote,
-- and asks the declaration why (see Declarations/DeclarationRefusal.swift).
--
-- Keys are TEXT. A SQL client that binds a key as a BLOB (Python's bytes) stored a second row
-- beside the TEXT one, outside every declaration and every reader's idea of that key. Such a
-- write is now refused (a new one, or an UPDATE of `key`); rows a file already holds are left
-- as they are, and the library's readers skip them (TheFileFormat.md says how to find them).
--
-- Views `defaults_value_judgements` and `defaults_default_judgements` judge storage class, bool
-- range and allowed values (`defaults_judgements` is both; `defaults_violations` and
-- `defaults_value_violations`, for operators, are their refusals); triggers `defaults_json_check`
-- and `defaults_json_validate` judge JSON text. The triggers on `defaults` and `defaults_schema` only route to them.
DROP TRIGGER defaults_declared_insert;
DROP TRIGGER defaults_declared_update;
DROP TRIGGER defaults_declared_check;
DROP VIEW defaults_declared_check;
DROP TRIGGER defaults_schema_insert;
DROP TRIGGER defaults_schema_update;
DROP VIEW defaults_violations;
DROP VIEW defaults_value_violations;

-- The declarations, as in 0006, without the JSON CHECK (the triggers below check `allowed`)
-- and with TEXT keys. Rebuilt, because SQLite cannot drop a CHECK constraint in place.
CREATE TABLE defaults_schema_0010 (
    key           TEXT PRIMARY KEY NOT NULL CHECK (typeof(key) = 'text'),
    type          TEXT NOT NULL CHECK (type IN ('bool', 'int', 'double', 'string', 'json', 'data', 'date', 'url')),
    swift_type    TEXT,
    default_value,
    summary       TEXT,
    allowed       TEXT CHECK (allowed IS NULL OR typeof(allowed) = 'text')
);
INSERT INTO defaults_schema_0010(key, type, swift_type, default_value, summary, allowed)
    SELECT key, type, swift_type, default_value, summary, allowed FROM defaults_schema;
DROP TABLE defaults_schema;
ALTER TABLE defaults_schema_0010 RENAME TO defaults_schema;

-- Each stored value of a declared key and each declaration's own default, judged: `message` is
-- NULL when it fits, else a sentence that names the key and the declared type. int and bool
-- need INTEGER (bool 0 or 1); double and date REAL or INTEGER; string, url and json TEXT (json
-- text must also parse: trigger defaults_json_check); data BLOB; NULL is refused (delete the row
-- to unset a key). With allowed values, the value's text must be one of them, byte for byte.
--
-- The rule is written twice, once per view, the same text over another column. One view over
-- a UNION ALL of both (tried first) made the write trigger compile both halves and the message
-- twice over: a declared key's upsert cost 75,000 instructions against 45,000 with 0008's
-- single view (callgrind, Python's sqlite3, 2,000 upserts); the write trigger reads only the
-- stored-value view. A query for one key is one probe of each key index.
CREATE VIEW defaults_value_judgements(key, type, value, message) AS
SELECT s.key, s.type, d.value, 'declared key "' || s.key || '" is ' || s.type || ', so ' || CASE
        WHEN NOT CASE s.type
                WHEN 'bool' THEN typeof(d.value) = 'integer'
                WHEN 'int' THEN typeof(d.value) = 'integer'
                WHEN 'double' THEN typeof(d.value) IN ('real', 'integer')
                WHEN 'date' THEN typeof(d.value) IN ('real', 'integer')
                WHEN 'string' THEN typeof(d.value) = 'text'
                WHEN 'url' THEN typeof(d.value) = 'text'
                WHEN 'json' THEN typeof(d.value) = 'text'
                WHEN 'data' THEN typeof(d.value) = 'blob'
                ELSE 0 END
            THEN 'a ' || typeof(d.value) || ' value is refused'
                || CASE WHEN d.value IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
        WHEN s.type = 'bool' AND d.value NOT IN (0, 1)
            THEN 'the value ' || d.value || ' is refused (0 or 1 only)'
        WHEN s.allowed IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM json_each(s.allowed) AS a WHERE a.value = CAST(d.value AS TEXT))
            THEN 'the value ' || CAST(d.value AS TEXT) || ' is refused (allowed: ' || s.allowed || ')'
    END
FROM defaults_schema AS s JOIN defaults AS d ON d.key = s.key;

CREATE VIEW defaults_default_judgements(key, type, value, message) AS
SELECT s.key, s.type, s.default_value, 'declared key "' || s.key || '" is ' || s.type || ', so ' || CASE
        WHEN NOT CASE s.type
                WHEN 'bool' THEN typeof(s.default_value) = 'integer'
                WHEN 'int' THEN typeof(s.default_value) = 'integer'
                WHEN 'double' THEN typeof(s.default_value) IN ('real', 'integer')
                WHEN 'date' THEN typeof(s.default_value) IN ('real', 'integer')
                WHEN 'string' THEN typeof(s.default_value) = 'text'
                WHEN 'url' THEN typeof(s.default_value) = 'text'
                WHEN 'json' THEN typeof(s.default_value) = 'text'
                WHEN 'data' THEN typeof(s.default_value) = 'blob'
                ELSE 0 END
            THEN 'a ' || typeof(s.default_value) || ' default is refused'
                || CASE WHEN s.default_value IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
        WHEN s.type = 'bool' AND s.default_value NOT IN (0, 1)
            THEN 'the default ' || s.default_value || ' is refused (0 or 1 only)'
        WHEN s.allowed IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM json_each(s.allowed) AS a WHERE a.value = CAST(s.default_value AS TEXT))
            THEN 'the default ' || CAST(s.default_value AS TEXT) || ' is refused (allowed: ' || s.allowed || ')'
    END
FROM defaults_schema AS s WHERE s.default_value IS NOT NULL;

CREATE VIEW defaults_judgements(key, type, origin, value, message) AS
SELECT key, type, 'value', value, message FROM defaults_value_judgements
UNION ALL
SELECT key, type, 'default', value, message FROM defaults_default_judgements;

-- For operators: everything a declaration refuses (empty in a healthy file), and its
-- stored-value half. JSON text is judged on write only (see defaults_json_check).
CREATE VIEW defaults_violations(key, type, origin, value, message) AS
SELECT key, type, origin, value, message FROM defaults_judgements WHERE message IS NOT NULL;

CREATE VIEW defaults_value_violations(key, type, value, message) AS
SELECT key, type, value, message FROM defaults_value_judgements WHERE message IS NOT NULL;

-- JSON text for a json key: `value` is the text (a stored value or a default, named by
-- `origin`), passed in so that the validator reads it from a register: read from its table
-- row instead, every look at a long value would read its overflow pages again.
--
-- Two steps. `defaults_json_check` takes every declared key's value with its type and passes
-- on json text only; `defaults_json_validate` holds the validator. SQLite sets up a trigger's
-- whole register frame before its WHEN clause runs, and the validator's is large: entered for
-- every declared key, it cost an int key's write 25,000 instructions more (callgrind). And the
-- values come in by VALUES, never INSERT ... SELECT, which SQLite runs through a temporary
-- table whenever the target has a trigger.
CREATE VIEW defaults_json_check(key, type, origin, value) AS SELECT NULL, NULL, NULL, NULL WHERE 0;

CREATE VIEW defaults_json_validate(key, origin, value) AS SELECT NULL, NULL, NULL WHERE 0;

CREATE TRIGGER defaults_json_check INSTEAD OF INSERT ON defaults_json_check
WHEN new.type = 'json' AND typeof(new.value) = 'text'
BEGIN
    INSERT INTO defaults_json_validate(key, origin, value) VALUES (new.key, new.origin, new.value);
END;

CREATE TRIGGER defaults_json_validate INSTEAD OF INSERT ON defaults_json_validate
BEGIN
    -- This library's connections judge with the same grammar in Swift, through a function they
    -- override for themselves (StrictJSON+Connection.swift); every other client, with the
    -- validator below. Either way the refusal names the key and the type.
    SELECT 1 FROM json_each('{}', CASE WHEN CASE WHEN unicode(sqlite_source_id()) = 123
            THEN NOT sqlite_compileoption_used(new.value) ELSE NOT
        EXISTS (
            WITH RECURSIVE scan(phase, p, s, st, h, k, n) AS (
                SELECT 0, 1, 0, '', NULL, NULL, NULL
                UNION ALL
                -- phase 0: read. h: the byte at p; k: for a string, the first quote or backslash within
                -- 256 bytes (257: none); n: a literal's length (state 0), or 1 when the bytes a string
                -- skips hold a control character (states 5 and 15), or 1 when \u has four hex digits.
                SELECT 1, x.p, x.s, x.st, substr(CAST(new.value AS BLOB), x.p, 1),
                    CASE WHEN x.s IN (5, 15) THEN min(coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'22'), 0), 257), coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'5c'), 0), 257)) END,
                    CASE
                        WHEN x.s = 0 THEN CASE WHEN substr(CAST(new.value AS BLOB), x.p, 4) IN (x'74727565', x'6e756c6c') THEN 4
                            WHEN substr(CAST(new.value AS BLOB), x.p, 5) = x'66616c7365' THEN 5 ELSE 0 END
                        WHEN x.s IN (5, 15) THEN (instr(substr(substr(CAST(new.value AS BLOB), x.p, 256), 1, min(coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'22'), 0), 257), coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'5c'), 0), 257)) - 1), x'00') > 0
                            OR CAST(substr(substr(CAST(new.value AS BLOB), x.p, 256), 1, min(coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'22'), 0), 257), coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'5c'), 0), 257)) - 1) AS TEXT) GLOB '*[' || char(1) || '-' || char(31) || ']*')
                            OR (min(coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'22'), 0), 257), coalesce(nullif(instr(substr(CAST(new.value AS BLOB), x.p, 256), x'5c'), 0), 257)) = 257 AND length(substr(CAST(new.value AS BLOB), x.p, 256)) < 256)
                        WHEN x.s IN (6, 16) THEN upper(CAST(substr(CAST(new.value AS BLOB), x.p + 1, 4) AS TEXT)) GLOB '[0-9A-F][0-9A-F][0-9A-F][0-9A-F]'
                    END
                FROM scan AS x WHERE x.phase = 0 AND x.s NOT IN (-1, 99)
                UNION ALL
                -- phase 1: move. s: the next state (-1 refused, 99 accepted); p: past what was read.
                SELECT 0,
                    x.p + CASE
                        WHEN x.s = 0 THEN max(x.n, 1)
                        WHEN x.s IN (5, 15) THEN min(x.k, 256)
                        WHEN x.s IN (6, 16) THEN CASE WHEN x.h = x'75' THEN 5 ELSE 1 END
                        WHEN x.s = 3 THEN x.h IN (x'20', x'09', x'0a', x'0d') OR x.h = x'5d'
                        WHEN x.s = 21 THEN x.h IN (x'2e', x'65', x'45')
                        WHEN x.s = 22 THEN x.h BETWEEN x'30' AND x'39' OR x.h IN (x'2e', x'65', x'45')
                        WHEN x.s = 24 THEN x.h BETWEEN x'30' AND x'39' OR x.h IN (x'65', x'45')
                        WHEN x.s = 27 THEN x.h BETWEEN x'30' AND x'39'
                        ELSE 1 END,
                    CASE x.s
                        WHEN 0 THEN CASE
                            WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 0
                            WHEN x.h IN (x'7b', x'5b') AND length(x.st) >= 1000 THEN -1
                            WHEN x.h = x'7b' THEN 2
                            WHEN x.h = x'5b' THEN 3
                            WHEN x.h = x'22' THEN 5
                            WHEN x.h = x'2d' THEN 20
                            WHEN x.h = x'30' THEN 21
                            WHEN x.h BETWEEN x'31' AND x'39' THEN 22
                            WHEN x.n > 0 THEN 1
                            ELSE -1 END
                        WHEN 1 THEN CASE
                            WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 1
                            WHEN x.st = '' THEN CASE WHEN x.h = x'' THEN 99 ELSE -1 END
                            WHEN x.h = x'2c' THEN CASE WHEN substr(x.st, -1) = 'o' THEN 4 ELSE 0 END
                            WHEN x.h = x'7d' AND substr(x.st, -1) = 'o' THEN 1
                            WHEN x.h = x'5d' AND substr(x.st, -1) = 'a' THEN 1
                            ELSE -1 END
                        WHEN 2 THEN CASE WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 2 WHEN x.h = x'22' THEN 15 WHEN x.h = x'7d' THEN 1 ELSE -1 END
                        WHEN 3 THEN CASE WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 3 WHEN x.h = x'5d' THEN 1 ELSE 0 END
                        WHEN 4 THEN CASE WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 4 WHEN x.h = x'22' THEN 15 ELSE -1 END
                        WHEN 7 THEN CASE WHEN x.h IN (x'20', x'09', x'0a', x'0d') THEN 7 WHEN x.h = x'3a' THEN 0 ELSE -1 END
                        WHEN 5 THEN CASE WHEN x.n THEN -1 WHEN x.k = 257 THEN 5
                            WHEN substr(substr(CAST(new.value AS BLOB), x.p, 256), x.k, 1) = x'22' THEN 1 ELSE 6 END
                        WHEN 15 THEN CASE WHEN x.n THEN -1 WHEN x.k = 257 THEN 15
                            WHEN substr(substr(CAST(new.value AS BLOB), x.p, 256), x.k, 1) = x'22' THEN 7 ELSE 16 END
                        WHEN 6 THEN CASE WHEN x.h IN (x'22', x'5c', x'2f', x'62', x'66', x'6e', x'72', x'74') OR (x.h = x'75' AND x.n) THEN 5 ELSE -1 END
                        WHEN 16 THEN CASE WHEN x.h IN (x'22', x'5c', x'2f', x'62', x'66', x'6e', x'72', x'74') OR (x.h = x'75' AND x.n) THEN 15 ELSE -1 END
                        WHEN 20 THEN CASE WHEN x.h = x'30' THEN 21 WHEN x.h BETWEEN x'30' AND x'39' THEN 22 ELSE -1 END
                        WHEN 21 THEN CASE WHEN x.h = x'2e' THEN 23 WHEN x.h IN (x'65', x'45') THEN 25 ELSE 1 END
                        WHEN 22 THEN CASE WHEN x.h BETWEEN x'30' AND x'39' THEN 22 WHEN x.h = x'2e' THEN 23 WHEN x.h IN (x'65', x'45') THEN 25 ELSE 1 END
                        WHEN 23 THEN CASE WHEN x.h BETWEEN x'30' AND x'39' THEN 24 ELSE -1 END
                        WHEN 24 THEN CASE WHEN x.h BETWEEN x'30' AND x'39' THEN 24 WHEN x.h IN (x'65', x'45') THEN 25 ELSE 1 END
                        WHEN 25 THEN CASE WHEN x.h IN (x'2b', x'2d') THEN 26 WHEN x.h BETWEEN x'30' AND x'39' THEN 27 ELSE -1 END
                        WHEN 26 THEN CASE WHEN x.h BETWEEN x'30' AND x'39' THEN 27 ELSE -1 END
                        WHEN 27 THEN CASE WHEN x.h BETWEEN x'30' AND x'39' THEN 27 ELSE 1 END
                        ELSE -1 END,
                    CASE
                        WHEN x.s = 0 AND x.h = x'7b' THEN x.st || 'o'
                        WHEN x.s = 0 AND x.h = x'5b' THEN x.st || 'a'
                        WHEN x.s IN (1, 2, 3) AND x.h IN (x'7d', x'5d') THEN substr(x.st, 1, length(x.st) - 1)
                        ELSE x.st END,
                    NULL, NULL, NULL
                FROM scan AS x WHERE x.phase = 1 AND x.s NOT IN (-1, 99)
            )
            SELECT 1 FROM scan WHERE s = 99
        )
            END
        THEN 'declared key "' || new.key || '" is json, so a ' || new.origin || ' that is not valid JSON is refused'
        ELSE '$' END);
END;

-- Enforcement, for declared keys only (0008's shape: the triggers on `defaults` hold only a
-- probe, and the check runs in the INSTEAD OF trigger of a view that holds no rows, so an
-- undeclared key's write pays one index probe and one typeof()).
--
-- `(SELECT 1 FROM json_each('{}', sentence))` raises the sentence as a malformed path. Each is
-- reached only for a refusal (a scalar subquery under a WHERE that finds one), so a write that
-- fits opens no virtual table.
CREATE VIEW defaults_declared_check(key, value) AS SELECT NULL, NULL WHERE 0;

CREATE TRIGGER defaults_declared_check INSTEAD OF INSERT ON defaults_declared_check
BEGIN
    SELECT (SELECT 1 FROM json_each('{}', 'a key of defaults is TEXT, so a ' || typeof(new.key) || ' key is refused'))
        WHERE typeof(new.key) IS NOT 'text';
    SELECT (SELECT 1 FROM json_each('{}', j.message)) FROM defaults_value_judgements AS j
        WHERE j.key = new.key AND j.message IS NOT NULL;
    INSERT INTO defaults_json_check(key, type, origin, value)
        VALUES (new.key, (SELECT type FROM defaults_schema WHERE key = new.key), 'value', new.value);
END;

CREATE TRIGGER defaults_declared_insert AFTER INSERT ON defaults
WHEN typeof(new.key) IS NOT 'text' OR EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT INTO defaults_declared_check(key, value) VALUES (new.key, new.value);
END;

CREATE TRIGGER defaults_declared_update AFTER UPDATE ON defaults
WHEN typeof(new.key) IS NOT 'text' OR EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT INTO defaults_declared_check(key, value) VALUES (new.key, new.value);
END;

-- A declaration is refused, whoever writes it, when its allowed values are not a JSON array,
-- or its own default or the stored value breaks it. The same check for an INSERT and an
-- UPDATE, so it lives once, in a view's INSTEAD OF trigger.
CREATE VIEW defaults_schema_check(key, type, allowed, default_value) AS SELECT NULL, NULL, NULL, NULL WHERE 0;

CREATE TRIGGER defaults_schema_check INSTEAD OF INSERT ON defaults_schema_check
BEGIN
    SELECT (SELECT 1 FROM json_each('{}', 'declared key "' || new.key || '" is ' || new.type
            || ', so allowed values that are not a JSON array are refused'))
        WHERE new.allowed IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM json_tree(new.allowed) WHERE id = 0 AND type = 'array');
    SELECT (SELECT 1 FROM json_each('{}', j.message)) FROM defaults_judgements AS j
        WHERE j.key = new.key AND j.message IS NOT NULL;
    INSERT INTO defaults_json_check(key, type, origin, value) VALUES (new.key, new.type, 'default', new.default_value);
    INSERT INTO defaults_json_check(key, type, origin, value)
        VALUES (new.key, new.type, 'value', (SELECT value FROM defaults WHERE key = new.key));
END;

CREATE TRIGGER defaults_schema_insert AFTER INSERT ON defaults_schema
BEGIN
    INSERT INTO defaults_schema_check VALUES (new.key, new.type, new.allowed, new.default_value);
END;

CREATE TRIGGER defaults_schema_update AFTER UPDATE ON defaults_schema
BEGIN
    INSERT INTO defaults_schema_check VALUES (new.key, new.type, new.allowed, new.default_value);
END;

-- Declared keys: a key's type, default and summary, kept in the file so that every client
-- (this library, `prefs`, the sqlite3 shell, Python, a fleet peer) is held to them.
--
-- `type` is the CLI's vocabulary. `default_value` is the default as it would be stored (NULL:
-- none). `allowed` is a JSON array of the raw values allowed (text, as `CAST(value AS TEXT)`
-- gives them), or NULL for any. Undeclared keys accept anything, as before.
CREATE TABLE defaults_schema (
    key           TEXT PRIMARY KEY NOT NULL,
    type          TEXT NOT NULL CHECK (type IN ('bool', 'int', 'double', 'string', 'json', 'data', 'date', 'url')),
    swift_type    TEXT,
    default_value,
    summary       TEXT,
    allowed       TEXT CHECK (allowed IS NULL OR (json_valid(allowed) AND json_type(allowed) = 'array'))
);

-- Every stored value and every default that its declaration refuses, with a message that
-- names the key and the declared type. Empty in a healthy file; the triggers below keep it
-- so. A query for one key (`WHERE key = ?`) looks up that key in both tables' indexes, so the
-- triggers cost the same with 10,000 declared keys as with one.
--
-- int and bool need INTEGER (bool 0 or 1); double and date REAL or INTEGER; string and url
-- TEXT; json valid JSON TEXT; data BLOB. A NULL default is no default. A NULL value is
-- refused (a typed reader could not read it): deleting the row unsets a key, and is always
-- allowed.
CREATE VIEW defaults_violations AS
SELECT key, type, origin, stored AS value,
    'declared key "' || key || '" is ' || type || ', so ' || CASE
        WHEN NOT CASE type
            WHEN 'bool' THEN typeof(stored) = 'integer'
            WHEN 'int' THEN typeof(stored) = 'integer'
            WHEN 'double' THEN typeof(stored) IN ('real', 'integer')
            WHEN 'date' THEN typeof(stored) IN ('real', 'integer')
            WHEN 'string' THEN typeof(stored) = 'text'
            WHEN 'url' THEN typeof(stored) = 'text'
            WHEN 'json' THEN typeof(stored) = 'text'
            WHEN 'data' THEN typeof(stored) = 'blob'
            ELSE 0 END
            THEN 'a ' || typeof(stored) || ' ' || origin || ' is refused'
                || CASE WHEN stored IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
        WHEN type = 'bool' AND stored NOT IN (0, 1)
            THEN 'the ' || origin || ' ' || stored || ' is refused (0 or 1 only)'
        WHEN type = 'json' AND NOT json_valid(stored)
            THEN 'a ' || origin || ' that is not valid JSON is refused'
        ELSE 'the ' || origin || ' ' || CAST(stored AS TEXT) || ' is refused (allowed: ' || allowed || ')'
    END AS message
FROM (
    SELECT s.key AS key, s.type AS type, s.allowed AS allowed, 'value' AS origin, d.value AS stored
    FROM defaults_schema AS s JOIN defaults AS d ON d.key = s.key
    UNION ALL
    SELECT s.key, s.type, s.allowed, 'default', s.default_value
    FROM defaults_schema AS s
)
WHERE CASE WHEN stored IS NULL THEN origin = 'value' ELSE NOT (
    CASE type
        WHEN 'bool' THEN typeof(stored) = 'integer' AND stored IN (0, 1)
        WHEN 'int' THEN typeof(stored) = 'integer'
        WHEN 'double' THEN typeof(stored) IN ('real', 'integer')
        WHEN 'date' THEN typeof(stored) IN ('real', 'integer')
        WHEN 'string' THEN typeof(stored) = 'text'
        WHEN 'url' THEN typeof(stored) = 'text'
        WHEN 'json' THEN typeof(stored) = 'text' AND json_valid(stored)
        WHEN 'data' THEN typeof(stored) = 'blob'
        ELSE 0 END
    AND (allowed IS NULL OR EXISTS (SELECT 1 FROM json_each(allowed) AS a WHERE a.value = CAST(stored AS TEXT)))
) END;

-- Enforcement. SQLite's RAISE() takes only a literal, so a trigger cannot say which key it
-- refused that way; the one SQL function whose error repeats its argument is json_extract
-- with a malformed path. Its error ("JSON path error near 'declared key "timeout" is int, so
-- a text value is refused'") aborts the statement like RAISE(ABORT) and names the key and
-- the type. The library recognises the text and reports DefaultsError.declarationConflict.
CREATE TRIGGER defaults_declared_insert AFTER INSERT ON defaults
BEGIN
    SELECT json_extract('{}', message) FROM defaults_violations WHERE key = new.key AND origin = 'value';
END;

CREATE TRIGGER defaults_declared_update AFTER UPDATE ON defaults
BEGIN
    SELECT json_extract('{}', message) FROM defaults_violations WHERE key = new.key AND origin = 'value';
END;

-- A declaration that the stored value (or its own default) breaks is refused the same way,
-- whoever writes it, and changes nothing.
CREATE TRIGGER defaults_schema_insert AFTER INSERT ON defaults_schema
BEGIN
    SELECT json_extract('{}', message) FROM defaults_violations WHERE key = new.key;
END;

CREATE TRIGGER defaults_schema_update AFTER UPDATE ON defaults_schema
BEGIN
    SELECT json_extract('{}', message) FROM defaults_violations WHERE key = new.key;
END;

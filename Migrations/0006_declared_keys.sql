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

-- Every stored value that its declaration refuses, with a message that names the key and the
-- declared type; empty in a healthy file, and the triggers below keep it so. A query for one
-- key (`WHERE key = ?`) is one lookup in each table's key index, so the check costs the same
-- with 10,000 declared keys as with one, and an undeclared key pays one index probe.
--
-- int and bool need INTEGER (bool 0 or 1); double and date REAL or INTEGER; string and url
-- TEXT; json valid JSON TEXT; data BLOB. A NULL value is refused (a typed reader could not
-- read it): deleting the row unsets a key, and is always allowed.
CREATE VIEW defaults_value_violations AS
SELECT d.key AS key, s.type AS type, d.value AS value,
    'declared key "' || d.key || '" is ' || s.type || ', so ' || CASE
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
        WHEN s.type = 'json' AND NOT json_valid(d.value)
            THEN 'a value that is not valid JSON is refused'
        ELSE 'the value ' || CAST(d.value AS TEXT) || ' is refused (allowed: ' || s.allowed || ')'
    END AS message
FROM defaults_schema AS s CROSS JOIN defaults AS d ON d.key = s.key
WHERE NOT (CASE s.type
        WHEN 'bool' THEN typeof(d.value) = 'integer' AND d.value IN (0, 1)
        WHEN 'int' THEN typeof(d.value) = 'integer'
        WHEN 'double' THEN typeof(d.value) IN ('real', 'integer')
        WHEN 'date' THEN typeof(d.value) IN ('real', 'integer')
        WHEN 'string' THEN typeof(d.value) = 'text'
        WHEN 'url' THEN typeof(d.value) = 'text'
        WHEN 'json' THEN typeof(d.value) = 'text' AND json_valid(d.value)
        WHEN 'data' THEN typeof(d.value) = 'blob'
        ELSE 0 END
    AND (s.allowed IS NULL OR EXISTS (SELECT 1 FROM json_each(s.allowed) AS a WHERE a.value = CAST(d.value AS TEXT))));

-- The same, with the declarations whose own default does not fit (a NULL default is none):
-- everything a declaration of a key refuses, for the schema's triggers and for operators.
CREATE VIEW defaults_violations AS
SELECT key, type, 'value' AS origin, value, message FROM defaults_value_violations
UNION ALL
SELECT key, type, 'default', default_value,
    'declared key "' || key || '" is ' || type || ', so ' || CASE
        WHEN NOT CASE type
            WHEN 'bool' THEN typeof(default_value) = 'integer'
            WHEN 'int' THEN typeof(default_value) = 'integer'
            WHEN 'double' THEN typeof(default_value) IN ('real', 'integer')
            WHEN 'date' THEN typeof(default_value) IN ('real', 'integer')
            WHEN 'string' THEN typeof(default_value) = 'text'
            WHEN 'url' THEN typeof(default_value) = 'text'
            WHEN 'json' THEN typeof(default_value) = 'text'
            WHEN 'data' THEN typeof(default_value) = 'blob'
            ELSE 0 END
            THEN 'a ' || typeof(default_value) || ' default is refused'
                || CASE WHEN default_value IS NULL THEN ' (delete the row to unset the key)' ELSE '' END
        WHEN type = 'bool' AND default_value NOT IN (0, 1)
            THEN 'the default ' || default_value || ' is refused (0 or 1 only)'
        WHEN type = 'json' AND NOT json_valid(default_value)
            THEN 'a default that is not valid JSON is refused'
        ELSE 'the default ' || CAST(default_value AS TEXT) || ' is refused (allowed: ' || allowed || ')'
    END
FROM defaults_schema
WHERE default_value IS NOT NULL AND NOT (CASE type
        WHEN 'bool' THEN typeof(default_value) = 'integer' AND default_value IN (0, 1)
        WHEN 'int' THEN typeof(default_value) = 'integer'
        WHEN 'double' THEN typeof(default_value) IN ('real', 'integer')
        WHEN 'date' THEN typeof(default_value) IN ('real', 'integer')
        WHEN 'string' THEN typeof(default_value) = 'text'
        WHEN 'url' THEN typeof(default_value) = 'text'
        WHEN 'json' THEN typeof(default_value) = 'text' AND json_valid(default_value)
        WHEN 'data' THEN typeof(default_value) = 'blob'
        ELSE 0 END
    AND (allowed IS NULL OR EXISTS (SELECT 1 FROM json_each(allowed) AS a WHERE a.value = CAST(default_value AS TEXT))));

-- Enforcement. SQLite's RAISE() takes only a literal, so a trigger cannot say which key it
-- refused that way; the one SQL function whose error repeats its argument is json_extract
-- with a malformed path. Its error ("JSON path error near 'declared key "timeout" is int, so
-- a text value is refused'") aborts the statement like RAISE(ABORT) and names the key and
-- the type. The library recognises the text and reports DefaultsError.declarationConflict.
CREATE TRIGGER defaults_declared_insert AFTER INSERT ON defaults
BEGIN
    SELECT json_extract('{}', message) FROM defaults_value_violations WHERE key = new.key;
END;

CREATE TRIGGER defaults_declared_update AFTER UPDATE ON defaults
BEGIN
    SELECT json_extract('{}', message) FROM defaults_value_violations WHERE key = new.key;
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

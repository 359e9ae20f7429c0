-- One redefined built-in: the library checks and seals its own writes in Swift, and the triggers
-- call no function of its own but `sqlite_source_id()`.
--
-- Up to 0014 this library's connections answered two more SQLite built-ins their own way:
-- `sqlite_compileoption_used(X)` ran the Swift JSON validator for `defaults_json_validate`, and
-- `sqlite_compileoption_get(X)` sealed a secret's value for the log triggers. Any SQL run on a
-- library connection got answers that were not SQLite's, and `schema.sql` misled its reader.
--
--   * JSON: the library judges a value in Swift (StrictJSON) before it writes, and its upsert
--     writes NULL instead when the key is declared `json` in the file and the text is not JSON:
--     every declared key refuses NULL, so the statement fails and changes nothing (the verdict is
--     one of the statement's parameters, the declaration is read by the statement itself, so a
--     declaration another process committed a moment ago counts). A declaration is
--     judged the same way, with the stored value read in its transaction. So the grammar walk
--     runs for every other client only: the trigger's WHEN leaves out the library's connections,
--     which are the ones whose `sqlite_source_id()` is a JSON object (the writer's identity,
--     WriterIdentity.swift; SQLite's own answer starts with a digit).
--   * Secrets: the log triggers still mask a secret key's value (`value` NULL, `secret` 1); they
--     no longer fill `sealed`. The library writes a secret key inside a transaction and seals the
--     entry its statement logged before committing (StoreConnection+HeldBack.swift); a write the
--     library believes is not secret carries a parameter that makes the statement fail the same
--     way when the file says otherwise, and the library then writes it the sealed way. An entry
--     another client wrote stays unsealed, as before.
--
-- `defaults_held_back` names the keys whose writes the library's upsert holds back for a second
-- look (declared `json`, or secret); `defaults_schema_held_back` indexes just those keys, so the
-- upsert's lookup, which reads it by name, touches one small index and no table row. On a file at
-- an older schema (a backup restored under a running store) that statement cannot even be
-- prepared: the store brings the file forward first, and no older trigger ever runs for its writes.
--
-- Everything a SQL client sees is unchanged: the same refusals with the same sentences, the same
-- masked log entries. A client that prepares an upsert compiles less (no seal expression).
CREATE INDEX defaults_schema_held_back ON defaults_schema(key, type, secret) WHERE type = 'json' OR secret = 1;
CREATE VIEW defaults_held_back(key, json, secret) AS
SELECT key, type = 'json', secret IS 1 FROM defaults_schema WHERE type = 'json' OR secret = 1;

DROP TRIGGER defaults_json_validate;
CREATE TRIGGER defaults_json_validate INSTEAD OF INSERT ON defaults_json_validate
WHEN unicode(sqlite_source_id()) IS NOT 123
BEGIN
    -- `scan` holds the position, the state and the stack ('#' then one letter per open
    -- container), and the text is valid when a walk ends in 'valid'. A byte with no step ends
    -- the walk.
    SELECT 1 FROM json_each('{}', CASE WHEN NOT EXISTS (
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
        SELECT 1 FROM scan WHERE s = 'valid')
        THEN 'declared key "' || new.key || '" is json, so a ' || new.origin || ' that is not valid JSON is refused'
        ELSE '$' END);
END;

DROP TRIGGER defaults_log_insert;
CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity, secret)
    SELECT new.key,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384 THEN NULL
             ELSE new.value END,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
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
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384 THEN NULL
             ELSE new.value END,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END,
        CASE WHEN s.secret = 1 THEN 1 END
    FROM (SELECT 1) LEFT JOIN defaults_schema AS s ON s.key = new.key;
END;

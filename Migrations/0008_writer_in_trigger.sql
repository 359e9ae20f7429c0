-- The writer of a change, recorded by the trigger that logs it, in the same statement.
--
-- 0007 named this library's writes with an UPDATE of the log before each COMMIT, which made
-- every lone `set` an explicit BEGIN, upsert, UPDATE and COMMIT: four statements where a bare
-- upsert is one (a quarter of a `set`'s SQLite work). Now the triggers ask the connection who
-- it is, through the one name every SQLite client knows with no arguments to pass:
-- `sqlite_source_id()`.
--
--   * In a SQL client outside this library (the `sqlite3` shell, Python, another program) it is
--     SQLite's built-in: the source identifier, text beginning with a date ("2022-12-28 ..."),
--     never with '{'. The entry's `writer_identity` is NULL, which history reads as "sql".
--     Nothing is asked of that client, and nothing is refused.
--   * A connection of this library overrides the built-in (sqlite3_create_function may replace
--     one for its own connection only) to return this process's identity as a JSON object:
--     {"pid": 1234, "program": "prefs", "user": "ops", "host": "web-1"}. The trigger stores it
--     as it is; any SQL client can read it with json_extract.
--
--   writer_identity  the JSON object above, for entries this library wrote; NULL otherwise
--
-- An entry whose `writer` column is set (0007's stamped entries, and the fleet's: 'fleet' and
-- the machine a row came from) is read by those columns, as before.
--
-- Two more savings on every write, measured in instructions per one-key upsert (callgrind):
--   * A rename's "removed" entry moves to a trigger of its own, `UPDATE OF key`: SQLite does
--     not even start it for an upsert, which sets only `value`. Inside the update trigger,
--     the INSERT ... SELECT ... WHERE old.key IS NOT new.key that wrote nothing still cost
--     about a tenth of the write.
--   * The declared-key checks (0006) run their view only for a declared key: one probe of
--     `defaults_schema`'s key index decides (see the end of this file).
ALTER TABLE defaults_changes ADD COLUMN writer_identity TEXT;

DROP TRIGGER defaults_log_insert;
DROP TRIGGER defaults_log_update;
DROP TRIGGER defaults_log_delete;
DROP TRIGGER defaults_declared_insert;
DROP TRIGGER defaults_declared_update;

-- As in 0007, plus the writer. `unicode()` reads the first character only: the override's
-- answer starts with '{', the built-in's with a digit.
CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity) VALUES (
        new.key,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN NULL ELSE new.value END,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END);
END;

-- The entry for the row as it is now: its value changed, it was renamed, or it is a REAL zero
-- (as in 0004 and 0005: -0.0 and 0.0 compare equal). The same value written again is not logged.
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity) VALUES (
        new.key,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN NULL ELSE new.value END,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END);
END;

-- A renamed row: its old key is gone.
CREATE TRIGGER defaults_log_rename AFTER UPDATE OF key ON defaults
WHEN old.key IS NOT new.key
BEGIN
    INSERT INTO defaults_changes(key, removed, time, writer_identity)
    VALUES (old.key, 1, CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END);
END;

CREATE TRIGGER defaults_log_delete AFTER DELETE ON defaults
BEGIN
    INSERT INTO defaults_changes(key, removed, time, writer_identity)
    VALUES (old.key, 1, CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END);
END;

-- 0006's checks, for declared keys only, and in a program of their own. SQLite sets up a
-- trigger's whole register frame before its WHEN clause runs, and the check's view needs a large
-- one: a trigger holding it cost every write, declared or not, about 3,400 instructions more
-- than the probe itself. So the triggers on `defaults` are small (the probe, then an INSERT into
-- a view that holds no rows), and the check runs in the view's INSTEAD OF trigger, whose frame
-- is set up only when a declared key is written. Nothing is stored: an INSERT into a view only
-- runs its trigger.
CREATE VIEW defaults_declared_check(key) AS SELECT NULL WHERE 0;

CREATE TRIGGER defaults_declared_check INSTEAD OF INSERT ON defaults_declared_check
BEGIN
    SELECT json_extract('{}', message) FROM defaults_value_violations WHERE key = new.key;
END;

CREATE TRIGGER defaults_declared_insert AFTER INSERT ON defaults
WHEN EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT INTO defaults_declared_check(key) VALUES (new.key);
END;

CREATE TRIGGER defaults_declared_update AFTER UPDATE ON defaults
WHEN EXISTS (SELECT 1 FROM defaults_schema WHERE key = new.key)
BEGIN
    INSERT INTO defaults_declared_check(key) VALUES (new.key);
END;

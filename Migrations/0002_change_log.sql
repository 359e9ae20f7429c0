-- Every committed change to `defaults`, by any writer (this library, another process,
-- or a plain SQL client), appends the changed key here. Stores compare the highest
-- `seq` with the last one they saw to learn which keys other connections changed.
-- AUTOINCREMENT keeps sequence numbers increasing even after old rows are pruned.
CREATE TABLE defaults_changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    key TEXT NOT NULL
);

CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key) VALUES (new.key);
END;

-- Writing the value a key already holds (same storage class and content) logs nothing,
-- so it notifies nobody.
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
BEGIN
    INSERT INTO defaults_changes(key) VALUES (new.key);
    INSERT INTO defaults_changes(key) SELECT old.key WHERE old.key IS NOT new.key;
END;

-- A trigger on the table also stops SQLite's truncate optimization, so even a bare
-- `DELETE FROM defaults` reports every row it removes.
CREATE TRIGGER defaults_log_delete AFTER DELETE ON defaults
BEGIN
    INSERT INTO defaults_changes(key) VALUES (old.key);
END;

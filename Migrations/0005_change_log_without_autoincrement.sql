-- The change log without AUTOINCREMENT. With it, every commit also rewrote the log's row in
-- `sqlite_sequence`: a third B-tree page per commit, about 30% of a one-key `set`. A plain
-- INTEGER PRIMARY KEY takes the largest `seq` + 1, so numbers still only grow as long as the
-- newest entry is never deleted; the library prunes only entries far older than the newest
-- (HistoryLog keeps the newest changes, 10,000 by default), and a reader that finds its last entry gone or
-- rewritten compares every key instead of trusting the log.
--
-- Triggers name the table they write to, so they go first and come back last. The rename runs
-- with legacy_alter_table on: otherwise SQLite re-checks every trigger and view of the schema,
-- and a view of the user's own over `defaults_changes` (gone for a moment) would fail the
-- migration, and with it every open of the file. (A trigger of the user's own *on*
-- `defaults_changes` goes with the old table, as in SQLite's own recipe for table changes.)
DROP TRIGGER defaults_log_insert;
DROP TRIGGER defaults_log_update;
DROP TRIGGER defaults_log_delete;

CREATE TABLE defaults_changes_next (
    seq INTEGER PRIMARY KEY,
    key TEXT NOT NULL
);
INSERT INTO defaults_changes_next(seq, key) SELECT seq, key FROM defaults_changes;
-- Numbers AUTOINCREMENT handed out above the newest remaining entry (only if someone deleted
-- the newest entries by hand) are never handed out again: a marker entry holds the mark. Its
-- key is the newest entry's (or none), so a reader that applies it re-reads one key and finds
-- nothing new.
INSERT INTO defaults_changes_next(seq, key)
    SELECT s.seq, coalesce((SELECT key FROM defaults_changes ORDER BY seq DESC LIMIT 1), '')
    FROM sqlite_sequence AS s
    WHERE s.name = 'defaults_changes'
      AND s.seq > (SELECT coalesce(max(seq), 0) FROM defaults_changes);
DROP TABLE defaults_changes;
PRAGMA legacy_alter_table = ON;
ALTER TABLE defaults_changes_next RENAME TO defaults_changes;
PRAGMA legacy_alter_table = OFF;

CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key) VALUES (new.key);
END;

-- As in 0004: a value that really changed, a renamed key, or any REAL zero (-0.0 and 0.0
-- compare equal) is logged; the same value written again is not.
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key) VALUES (new.key);
    INSERT INTO defaults_changes(key) SELECT old.key WHERE old.key IS NOT new.key;
END;

CREATE TRIGGER defaults_log_delete AFTER DELETE ON defaults
BEGIN
    INSERT INTO defaults_changes(key) VALUES (old.key);
END;

-- History: who changed what, and when. The change log already gets one entry per changed row
-- from every writer; it now also keeps what the row became, when, and who wrote it, so the
-- newest entries answer "who changed it, when, and from what?" (`store.history`, `prefs
-- history`). Columns are added, not a table: the entry lands on the page the log already
-- writes, so a commit writes no extra B-tree page (0005 measured a third page at about 30%
-- of a one-key `set`).
--
--   value          the value written (NULL when removed, or when too large to keep)
--   removed        1 when the row was deleted (renamed away included)
--   omitted        for a TEXT or BLOB over 16,384 bytes: its size in bytes; the value is not
--                  kept, so the log stays bounded (at most the kept length × 16 KiB)
--   time           UTC, milliseconds since 1970, as SQLite's clock says when the statement ran
--   writer         NULL: a SQL client outside this library ("sql"); 'library' or 'fleet',
--                  filled in by the writing store before it commits (HistoryLog.stamp)
--   writer_pid, writer_program, writer_user, writer_host
--                  who wrote it, where known; for 'fleet', writer_host is the machine the row
--                  came from
--   superseded     1 on an entry a later write of the same key in the same library transaction
--                  replaced, or a transaction that left the key as it was: history skips it
--                  (the change log still needs the entry, to see no gap)
--
-- Entries from before this migration have no time: history does not show them.
ALTER TABLE defaults_changes ADD COLUMN value;
ALTER TABLE defaults_changes ADD COLUMN removed INTEGER;
ALTER TABLE defaults_changes ADD COLUMN omitted INTEGER;
ALTER TABLE defaults_changes ADD COLUMN time INTEGER;
ALTER TABLE defaults_changes ADD COLUMN writer TEXT;
ALTER TABLE defaults_changes ADD COLUMN writer_pid INTEGER;
ALTER TABLE defaults_changes ADD COLUMN writer_program TEXT;
ALTER TABLE defaults_changes ADD COLUMN writer_user TEXT;
ALTER TABLE defaults_changes ADD COLUMN writer_host TEXT;
ALTER TABLE defaults_changes ADD COLUMN superseded INTEGER;

-- How many changes the file keeps (at least): one row, read when a store prunes. Absent or
-- out of range: 10,000.
CREATE TABLE defaults_history_settings (
    kept INTEGER NOT NULL
);

DROP TRIGGER defaults_log_insert;
DROP TRIGGER defaults_log_update;
DROP TRIGGER defaults_log_delete;

-- `julianday('now')` is SQLite's clock in whole milliseconds, the same for every row a
-- statement writes; rounded back to an integer it is exact. A TEXT value's size is taken as a
-- BLOB's (bytes, without counting characters); a number's size is never asked for. A plain
-- VALUES row, not a SELECT over a subquery: the trigger runs on every write, by every client.
CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time) VALUES (
        new.key,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN NULL ELSE new.value END,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER));
END;

-- As in 0004 and 0005: a value that really changed, a renamed key, or any REAL zero (-0.0 and
-- 0.0 compare equal) is logged; the same value written again is not.
CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time) VALUES (
        new.key,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN NULL ELSE new.value END,
        CASE WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER));
    INSERT INTO defaults_changes(key, removed, time)
    SELECT old.key, 1, CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)
    WHERE old.key IS NOT new.key;
END;

CREATE TRIGGER defaults_log_delete AFTER DELETE ON defaults
BEGIN
    INSERT INTO defaults_changes(key, removed, time)
    VALUES (old.key, 1, CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER));
END;

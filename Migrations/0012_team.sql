-- Operated by a team: who and why on every change, and secrets the history never keeps.
--
--   defaults_schema.secret    1 when the declared key is secret: its value is kept in `defaults`
--                             (its owner reads it) and nowhere else in the file.
--   defaults_changes.secret   1 on an entry of a secret key: `value` is NULL, whatever was written.
--   defaults_changes.sealed   on such an entry, when this library wrote it: a keyed digest of the
--                             value (two entries tell whether they wrote the same value without
--                             saying what it was) and the value sealed under the file's key, so
--                             `prefs revert` can write it back (SecretSeal.swift has the layout).
--                             NULL when another SQL client wrote it: the triggers have no keyed
--                             hash of their own.
--   defaults_digest_key       that key: 32 random bytes, made once per file.
--
-- Who and why travel in `writer_identity`, which the library's connections answer per
-- transaction (`"actor"` and `"reason"` beside the process's fields): no column is added.
--
-- The insert and update triggers are rewritten to mask a secret key's value. One lookup of the
-- key in `defaults_schema` per logged write (a LEFT JOIN, not a CASE per column, which would
-- look it up four times); this library's connections answer `sqlite_compileoption_get(X)` with
-- the sealed form of X (WriterIdentity.swift), every other client never reaches that branch. A
-- REAL is passed as printf('%!.17g'), which reads back to the same double (but for the sign
-- of a zero, which SQLite's printf drops).
ALTER TABLE defaults_schema ADD COLUMN secret INTEGER CHECK (secret IS NULL OR secret IN (0, 1));
ALTER TABLE defaults_changes ADD COLUMN secret INTEGER;
ALTER TABLE defaults_changes ADD COLUMN sealed BLOB;

CREATE TABLE defaults_digest_key (
    key BLOB NOT NULL
);
INSERT INTO defaults_digest_key(key) VALUES (randomblob(32));

DROP TRIGGER defaults_log_insert;
DROP TRIGGER defaults_log_update;

CREATE TRIGGER defaults_log_insert AFTER INSERT ON defaults
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity, secret, sealed)
    SELECT new.key,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384 THEN NULL
             ELSE new.value END,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END,
        CASE WHEN s.secret = 1 THEN 1 END,
        CASE WHEN s.secret = 1 AND unicode(sqlite_source_id()) = 123 THEN sqlite_compileoption_get(
            (SELECT hex(key) FROM defaults_digest_key LIMIT 1) || typeof(new.value) || ':'
            || CAST(CASE WHEN typeof(new.value) = 'real' THEN printf('%!.17g', new.value) ELSE new.value END AS BLOB)) END
    FROM (SELECT 1) LEFT JOIN defaults_schema AS s ON s.key = new.key;
END;

CREATE TRIGGER defaults_log_update AFTER UPDATE ON defaults
WHEN old.value IS NOT new.value OR typeof(old.value) IS NOT typeof(new.value) OR old.key IS NOT new.key
    OR (typeof(new.value) = 'real' AND new.value = 0.0)
BEGIN
    INSERT INTO defaults_changes(key, value, omitted, time, writer_identity, secret, sealed)
    SELECT new.key,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384 THEN NULL
             ELSE new.value END,
        CASE WHEN s.secret = 1 THEN NULL
             WHEN typeof(new.value) IN ('text', 'blob') AND length(CAST(new.value AS BLOB)) > 16384
             THEN length(CAST(new.value AS BLOB)) END,
        CAST(round((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER),
        CASE WHEN unicode(sqlite_source_id()) = 123 THEN sqlite_source_id() END,
        CASE WHEN s.secret = 1 THEN 1 END,
        CASE WHEN s.secret = 1 AND unicode(sqlite_source_id()) = 123 THEN sqlite_compileoption_get(
            (SELECT hex(key) FROM defaults_digest_key LIMIT 1) || typeof(new.value) || ':'
            || CAST(CASE WHEN typeof(new.value) = 'real' THEN printf('%!.17g', new.value) ELSE new.value END AS BLOB)) END
    FROM (SELECT 1) LEFT JOIN defaults_schema AS s ON s.key = new.key;
END;

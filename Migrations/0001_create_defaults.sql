-- One row per key. `value` has no declared type, so SQLite keeps every value in the
-- storage class it was written with (INTEGER, REAL, TEXT or BLOB).
-- A rowid table on purpose: sqlite3_update_hook ignores WITHOUT ROWID tables.
CREATE TABLE defaults (
    key   TEXT NOT NULL UNIQUE,
    value
);

-- A random identity for this database file, written once. A -wal file belongs to one
-- database, but nothing in it says which: SQLite would replay the -wal of another database
-- (restored from a backup, copied, renamed) over this one. On opening, the store compares the
-- identity seen through the -wal with the one in the main file, and refuses a mismatch.
CREATE TABLE defaults_identity (
    id TEXT NOT NULL
);
INSERT INTO defaults_identity(id) VALUES (lower(hex(randomblob(16))));

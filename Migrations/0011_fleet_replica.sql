-- The fleet's local tables (SQLiteDefaultsPostgres): what this file knows of the fleet's table in
-- PostgreSQL, kept in the file itself, next to the values, and changed in the same transactions.
-- Until now the fleet sync created them with SQL of its own on its first join; now every file
-- has them, and no module other than the library sends SQL to the store (the sync goes through
-- the library's replication API, `ReplicaTransaction`).
--
--   defaults_fleet_shadow  per key, the value the fleet's table held when this file last heard
--                          of it (`present` 0: the key was removed there), and that row's version.
--                          A key whose row in `defaults` differs from its shadow was changed here
--                          and not yet pushed: the file is the outbox.
--   defaults_fleet_state   the fleet table's identity and the version up to which its rows were
--                          applied here (one row, or none before the first join).
--
-- IF NOT EXISTS: a file the fleet sync joined before this migration already holds both tables,
-- exactly so (the sync created them with these statements), and keeps them and their rows.
CREATE TABLE IF NOT EXISTS defaults_fleet_shadow (
    key     TEXT NOT NULL PRIMARY KEY,
    value,
    present INTEGER NOT NULL,
    version INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS defaults_fleet_state (
    fleet    TEXT NOT NULL,
    position INTEGER NOT NULL
);

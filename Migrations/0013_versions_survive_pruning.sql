-- A key's version survives the pruning of its history.
--
-- A key's version is the sequence number of its newest change (`--if-seq`, `If-Match`,
-- `requireVersion`). It was read from the log alone, so once 10,000 newer changes of other keys
-- pruned a stable key's only entry its version read 0, and `--if-seq 0` ("create only")
-- overwrote it.
--
--   defaults_versions  key -> the sequence of the key's newest change that a prune deleted
--
-- Written only by a prune (the library's; no SQL client prunes), in the prune's transaction,
-- from the entries it deletes: one row per key whose change left the log, so the table holds at
-- most one row per key ever written (a removed key's row stays: its version is its removal's).
-- A key's version is its newest kept change, else its row here, else 0. No trigger: a write
-- through any client logs an entry as before, and the log's entry is always newer than a row
-- here.
CREATE TABLE defaults_versions (
    key TEXT NOT NULL PRIMARY KEY,
    seq INTEGER NOT NULL
) WITHOUT ROWID;

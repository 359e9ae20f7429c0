-- Pruning the history without reading it.
--
-- Until now a prune found the oldest entry to keep by walking the newest `kept` entries
-- backwards and skipping superseded ones (`... WHERE superseded IS NULL ORDER BY seq DESC
-- LIMIT 1 OFFSET kept - 1`). That walk read every kept row: about 4.5 million instructions at
-- the default 10,000, once per 1,000 commits, so a tenth of every `set`; at the longest length
-- (10,000,000) it read ten million rows, seconds inside one commit.
--
-- Entry numbers (`seq`, the rowid) have no holes: SQLite gives each new entry the largest plus
-- one, a rollback gives its numbers back, and entries are only ever deleted from the oldest
-- end. So the newest `kept` rows are the ones from `max(seq) - kept + 1` on, and only the
-- superseded rows among them (a key written more than once in one library transaction keeps
-- its last entry only) need counting, to keep that many more.
--
--   defaults_changes_superseded  the number of every superseded entry still in the log
--
-- A table of their own, not an index of the log: a partial index is looked at by every insert
-- into the log, and cost each logged change about 3,000 instructions (callgrind) to find that
-- the entry does not belong in it. This table is written only when an entry is marked
-- superseded, which happens in the rare transaction that writes one key twice, and the prune
-- counts the ones in its window with a short range of it.
CREATE TABLE defaults_changes_superseded (
    seq INTEGER PRIMARY KEY
);

INSERT INTO defaults_changes_superseded(seq) SELECT seq FROM defaults_changes WHERE superseded IS NOT NULL;

-- Whoever marks an entry, the table follows. An INSERT into the log never starts this trigger.
CREATE TRIGGER defaults_changes_superseded_mark AFTER UPDATE OF superseded ON defaults_changes
WHEN new.superseded IS NOT NULL AND old.superseded IS NULL
BEGIN
    INSERT OR IGNORE INTO defaults_changes_superseded(seq) VALUES (new.seq);
END;

/// A `sqlite3` script of one transaction that writes `keys` keys (`import.1` … `import.N`,
/// each its number) and prunes the change log to its newest `kept` entries before it commits,
/// as a store in the importing process would right after: a store or stream behind it finds
/// the entries after its last look gone when it reads (issue 46, finding 51).
public func prunedImportSQL(keys: Int = 20_000, kept: Int = 10_000) -> String {
    """
    BEGIN;
    INSERT INTO defaults(key, value)
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(keys))
        SELECT 'import.' || i, i FROM n;
    DELETE FROM defaults_changes WHERE seq <= (SELECT max(seq) - \(kept) FROM defaults_changes);
    COMMIT;
    """
}

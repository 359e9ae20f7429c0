/// Tells a database of this library from another program's before anything is written.
///
/// A mistyped `--db` or path must not add tables and triggers to another app's database and
/// switch it to WAL for good. A file is this library's when it has no tables yet, when it has
/// the `defaults_identity` table this library creates (other tables an app added beside ours
/// are then its business), or when every table it has is one this library makes (`defaults`,
/// `defaults_…`, SQLite's own `sqlite_…`: a file of an older schema, or a `defaults` table
/// made by hand). Anything else is refused unless the configuration allows other tables.
enum SchemaOwnership {
    /// - Returns: whether the file has a `defaults` table.
    /// - Throws: ``DefaultsError/Code/foreignDatabase`` for another program's database, or a
    ///   `defaults` table without the columns `key` and `value`.
    static func check(_ database: Database, allowsOtherTables: Bool) throws -> Bool {
        var tables: [String] = []
        let list = try database.statement("SELECT name FROM sqlite_master WHERE type = 'table'")
        defer { list.reset() }
        while try list.step() { tables.append(list.text(at: 0)) }
        guard !tables.isEmpty else { return false }

        let hasDefaults = tables.contains("defaults")
        if hasDefaults {
            var columns: Set<String> = []
            let info = try database.statement("SELECT name FROM pragma_table_info('defaults')")
            defer { info.reset() }
            while try info.step() { columns.insert(info.text(at: 0)) }
            guard columns.contains("key"), columns.contains("value") else {
                throw DefaultsError(
                    .foreignDatabase,
                    "the database at \(database.path) has a table named defaults without the columns key and value: it belongs to another program, and it was left untouched",
                    path: database.path)
            }
        }
        if allowsOtherTables || tables.contains("defaults_identity") { return hasDefaults }
        let foreign = tables.filter { $0 != "defaults" && !$0.hasPrefix("defaults_") && !$0.hasPrefix("sqlite_") }
        guard foreign.isEmpty else {
            let shown = foreign.sorted().prefix(3).joined(separator: ", ") + (foreign.count > 3 ? ", …" : "")
            throw DefaultsError(
                .foreignDatabase,
                "the database at \(database.path) belongs to another program (it has the tables \(shown)), so it was left untouched; to keep preferences inside your own database, set Configuration.allowsOtherTables",
                path: database.path)
        }
        return hasDefaults
    }
}

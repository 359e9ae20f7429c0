import Foundation

/// The store's rows read whole, on the store's connection (lock held): listings and exports.
extension StoreConnection {
    // Rows whose key is not TEXT are not keys of this store: a file from before schema 10 may
    // hold one a SQL client bound as a BLOB beside the TEXT key of the same bytes (schema 10
    // refuses such writes). Every reader skips them, so none is taken for another key.

    func keys() throws -> [String] {
        let statement = try database.statement("SELECT key FROM defaults WHERE typeof(key) = 'text' ORDER BY key")
        defer { statement.reset() }
        var keys: [String] = []
        while try statement.step() { keys.append(statement.text(at: 0)) }
        return keys
    }

    func entries() throws -> [(key: String, value: SQLiteValue)] {
        let statement = try database.statement("SELECT key, value FROM defaults WHERE typeof(key) = 'text' ORDER BY key")
        defer { statement.reset() }
        var entries: [(key: String, value: SQLiteValue)] = []
        while try statement.step() { entries.append((statement.text(at: 0), statement.value(at: 1))) }
        return entries
    }

    /// The bytes of every key that is not valid UTF-8, in key order.
    func keysNotValidUTF8() throws -> [Data] {
        let statement = try database.statement("SELECT key FROM defaults WHERE typeof(key) = 'text' ORDER BY key")
        defer { statement.reset() }
        var invalid: [Data] = []
        while try statement.step() {
            if case .invalidUTF8Text(let bytes) = statement.value(at: 0) { invalid.append(bytes) }
        }
        return invalid
    }
}

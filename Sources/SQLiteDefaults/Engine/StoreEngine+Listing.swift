import Foundation

/// Listings by prefix, substring and page: the SQL reads only the rows asked for, in key order
/// (by bytes: the `defaults.key` column's BINARY collation compares TEXT with `memcmp`), from
/// the key's unique index, so a page costs its own rows and not the table's.
extension StoreEngine {
    /// Which rows a listing reads.
    struct ListingQuery: Sendable {
        /// Only keys whose bytes start with these (empty: every key).
        var prefix: Data
        /// Only keys whose bytes contain these, ASCII letters in either case; nil: no filter.
        var containing: Data?
        /// Only keys whose bytes sort after these (the previous page's last key); nil: from the first.
        var after: Data?
    }

    /// One row of a listing: the key's exact bytes and the value as stored.
    typealias ListedRow = (key: Data, value: SQLiteValue)

    /// Up to `limit` rows of `query` in key order, and whether more follow (read as `limit + 1`
    /// rows, so that a last page that is exactly full says it is the last).
    func listingPage(_ query: ListingQuery, limit: Int) throws -> (rows: [ListedRow], more: Bool) {
        try withConnection { connection in
            var rows: [ListedRow] = []
            rows.reserveCapacity(min(limit, 1_024))
            var more = false
            try Self.stepListing(query, limit: limit + 1, database: connection.database) { key, value in
                if rows.count == limit { more = true } else { rows.append((key, value)) }
            }
            return (rows, more)
        }
    }

    /// Calls `body` with every row of `query` in key order, from one statement (one snapshot
    /// of the file), holding one row at a time.
    func forEachListed(_ query: ListingQuery, _ body: (Data, SQLiteValue) throws -> Void) throws {
        try withConnection { connection in
            try Self.stepListing(query, limit: nil, database: connection.database, body)
        }
    }

    /// Runs the listing's SELECT, with only the clauses `query` needs, so that SQLite
    /// plans a range scan of the key index (`key >= ? AND key < ? AND key > ?`).
    private static func stepListing(_ query: ListingQuery, limit: Int?, database: Database,
                                    _ body: (Data, SQLiteValue) throws -> Void) throws {
        var clauses = ["typeof(key) = 'text'"]
        var bindings: [SQLiteValue] = []
        func bound(_ value: SQLiteValue) -> String {
            bindings.append(value)
            return "?\(bindings.count)"
        }
        if !query.prefix.isEmpty {
            clauses.append("key >= " + bound(keyText(query.prefix)))
            if let end = prefixEnd(query.prefix) { clauses.append("key < " + bound(keyText(end))) }
        }
        if let after = query.after { clauses.append("key > " + bound(keyText(after))) }
        if let containing = query.containing, !containing.isEmpty {
            // SQLite's lower() folds ASCII letters only, byte by byte; comparing as BLOBs keeps
            // the match exact for keys that are not valid UTF-8.
            clauses.append("instr(CAST(lower(key) AS BLOB), CAST(lower(" + bound(keyText(containing)) + ") AS BLOB)) > 0")
        }
        var sql = "SELECT key, value FROM defaults WHERE " + clauses.joined(separator: " AND ") + " ORDER BY key"
        if let limit { sql += " LIMIT " + bound(.integer(Int64(limit))) }
        let statement = try database.statement(sql)
        defer { statement.reset() }
        for (index, value) in bindings.enumerated() { try statement.bind(value, at: Int32(index + 1)) }
        while try statement.step() {
            switch statement.value(at: 0) {
            case .text(let text): try body(Data(text.utf8), statement.value(at: 1))
            case .invalidUTF8Text(let bytes): try body(bytes, statement.value(at: 1))
            default: break  // `typeof(key) = 'text'` keeps every other class out
            }
        }
    }

    /// The smallest byte string above every string that starts with `prefix`, or nil when
    /// there is none (the prefix is all 0xFF bytes): the last byte below 0xFF, plus one.
    static func prefixEnd(_ prefix: Data) -> Data? {
        var end = prefix
        while let last = end.last {
            if last < 0xFF {
                end[end.index(before: end.endIndex)] = last + 1
                return end
            }
            end.removeLast()
        }
        return nil
    }

    /// Bytes bound as TEXT, as SQLite stores keys: a TEXT value compares with the key column
    /// by its bytes; a BLOB would compare below every TEXT.
    private static func keyText(_ bytes: Data) -> SQLiteValue {
        String(validating: bytes, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(bytes)
    }
}

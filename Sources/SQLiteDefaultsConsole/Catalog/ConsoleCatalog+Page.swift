#if Console
import Foundation
import PrefsFormats
import SQLiteDefaults

/// The key list a page at a time: the stored rows of one page read by the store's listing
/// (SQL with a range of the key index and a LIMIT), merged with the declared keys that are not
/// stored and sort into the same range.
extension ConsoleCatalog {
    /// One page of the key list and where the next one starts.
    struct Page: Sendable {
        /// The page's entries, in key order (by bytes).
        var entries: [ConsoleEntry]
        /// The bytes of the page's last key when more keys follow; nil on the last page.
        var next: Data?
    }

    /// Up to `limit` keys, stored or declared, that start with `prefix`, contain `contains`
    /// (ASCII letters in either case) and sort after `after`, in key order, each with its
    /// declaration, version, last change and secrecy.
    ///
    /// Declarations are few (a program declares its keys one by one) and are read whole; the
    /// stored rows, which may be millions, only a page at a time.
    /// - Throws: `DefaultsError` when the table, declarations or history cannot be read.
    func page(prefix: String, contains: String?, after: Data?, limit: Int) throws -> Page {
        let stored = try store.entries(prefix: prefix, containing: contains, after: after, limit: limit)
        let prefixBytes = Data(prefix.utf8), needle = contains.map { Data($0.utf8) }
        // Declared keys in the page's range: after the cursor and, when more stored keys
        // follow, not past the last one read (later ones belong to a later page).
        var declared: [Data: ConsoleDeclaration] = [:]
        for declaration in try declarations() {
            let bytes = Data(declaration.key.utf8)
            guard bytes.starts(with: prefixBytes), needle.map({ Self.contains(bytes, $0) }) ?? true,
                  after.map({ $0.lexicographicallyPrecedes(bytes) }) ?? true,
                  stored.next.map({ !$0.lexicographicallyPrecedes(bytes) }) ?? true else { continue }
            declared[bytes] = declaration
        }
        var entries: [ConsoleEntry] = []
        entries.reserveCapacity(stored.entries.count + declared.count)
        for row in stored.entries where row.value != .null {
            if let key = row.key {
                entries.append(ConsoleEntry(key: key, value: row.value, declaration: declared.removeValue(forKey: row.keyBytes)))
            } else {
                entries.append(ConsoleEntry(bytes: row.keyBytes, value: row.value))
            }
        }
        entries += declared.values.map { ConsoleEntry(key: $0.key, value: nil, declaration: $0) }
        entries.sort { Self.bytes(of: $0).lexicographicallyPrecedes(Self.bytes(of: $1)) }
        var next = stored.next
        if entries.count > limit {
            entries.removeSubrange(limit...)
            next = entries.last.map(Self.bytes(of:))
        }
        try describe(&entries)
        return Page(entries: entries, next: next)
    }

    /// Fills in each entry's last change, version and secrecy, reading the history for this
    /// page's keys only.
    private func describe(_ entries: inout [ConsoleEntry]) throws {
        let named = entries.indices.filter { entries[$0].keyBytes == nil }
        guard !named.isEmpty else { return }
        let changes = try lastChanges(of: Set(named.map { HashedKey(entries[$0].key) }))
        let versions = try store.versions()
        let secrets = try store.secretKeysByBytes()
        // `versions()` is keyed by `String`, so canonically equivalent keys share one entry
        // there: those keys' versions (rare) are read one by one.
        let equivalents = Set(Dictionary(grouping: named.map { entries[$0].key }, by: { $0 })
            .values.filter { $0.count > 1 }.joined().map(HashedKey.init))
        for index in named {
            let key = entries[index].key
            entries[index].lastChange = changes[HashedKey(key)]
            if equivalents.contains(HashedKey(key)) {
                entries[index].version = try store.version(of: key)
            } else {
                entries[index].version = versions[key] ?? 0
            }
            entries[index].isSecret = secrets.contains(HashedKey(key))
        }
    }

    /// How many history entries ``lastChanges(of:)`` reads at a time.
    static let lastChangeReadSize = 1_000

    /// The newest change of each of `keys` among the newest ``lastChangeWindow`` changes (or
    /// the kept length, if smaller), read backwards a slice at a time and kept only for these
    /// keys, so a page holds its own keys' changes and never the window's.
    private func lastChanges(of keys: Set<HashedKey>) throws -> [HashedKey: DefaultsHistoryEntry<SQLiteValue>] {
        var remaining = min(try store.historyRetention, Self.lastChangeWindow)
        var newest: [HashedKey: DefaultsHistoryEntry<SQLiteValue>] = [:]
        var before: Int64? = nil
        while remaining > 0, newest.count < keys.count {
            let slice = try store.history(keys: nil, limit: min(remaining, Self.lastChangeReadSize), before: before)
            for change in slice {
                let key = HashedKey(change.key)
                if keys.contains(key), newest[key] == nil { newest[key] = change }
            }
            guard slice.count == min(remaining, Self.lastChangeReadSize), let last = slice.last else { break }
            remaining -= slice.count
            before = last.sequence
        }
        return newest
    }

    /// The entry's key as bytes: its own bytes when it is not UTF-8, else its UTF-8.
    static func bytes(of entry: ConsoleEntry) -> Data {
        entry.keyBytes ?? Data(entry.key.utf8)
    }

    /// Whether `haystack` contains `needle`, ASCII letters in either case and every other byte
    /// exactly: the listing's `containing`, for the declarations filtered here.
    static func contains(_ haystack: Data, _ needle: Data) -> Bool {
        guard !needle.isEmpty else { return true }
        let folded = haystack.map(Self.lowered), target = needle.map(Self.lowered)
        guard folded.count >= target.count else { return false }
        for start in 0...(folded.count - target.count) where folded[start..<(start + target.count)].elementsEqual(target) {
            return true
        }
        return false
    }

    private static func lowered(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }
}
#endif

import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing
import TestScheduling

/// Listings by prefix, substring and page (`entries(prefix:containing:after:limit:)`,
/// `forEachEntry`): key order by bytes, cursors that survive removals, the last page that says
/// so, and keys that are not valid UTF-8.
@Suite("Listing by prefix and page", .offThePool)
struct ListingTests {
    let directory: TemporaryDirectory
    init() throws { directory = try TemporaryDirectory() }

    /// Stores `keys`, each with its index as value.
    func store(_ keys: [String]) throws -> DefaultsStore {
        let store = try DefaultsStore(path: directory.database)
        try store.transaction { transaction in
            for (index, key) in keys.enumerated() { try transaction.set(.integer(Int64(index)), for: DefaultsKey<SQLiteValue?>(key)) }
        }
        return store
    }

    /// Every key of every page, following `next` from the first page.
    func allPages(_ store: DefaultsStore, prefix: String = "", containing: String? = nil, limit: Int) throws -> (keys: [String], pages: Int) {
        var keys: [String] = []
        var after: Data? = nil
        var pages = 0
        repeat {
            let page = try store.entries(prefix: prefix, containing: containing, after: after, limit: limit)
            #expect(page.entries.count <= limit)
            keys += page.entries.map(\.name)
            after = page.next
            pages += 1
            if let after { #expect(after == page.entries.last?.keyBytes, "next is the page's last key") }
        } while after != nil && pages < 10_000
        return (keys, pages)
    }

    @Test("Pages follow each other in key order by bytes (as SQLite sorts), each key once; the last page has no next, even when exactly full")
    func pagesInByteOrder() throws {
        let keys = ["z", "a", "B", "\u{E9}", "e\u{301}", "~", "a.b", "a b", "\u{1F600}", "A"]
        let store = try store(keys)
        let sorted = keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for limit in [1, 3, 5, 10, 11] {
            let listed = try allPages(store, limit: limit)
            #expect(listed.keys == sorted, "limit \(limit)")
            #expect(listed.pages == max(1, (keys.count + limit - 1) / limit), "limit \(limit): no empty last page")
        }
        let whole = try store.entries(limit: 10)
        #expect(whole.next == nil && whole.entries.count == 10)
        #expect(whole.entries.first?.value == .integer(9) && whole.entries.first?.key == "A")
        let empty = try DefaultsStore(path: directory.path + "/empty.sqlite").entries(limit: 5)
        #expect(empty.entries.isEmpty && empty.next == nil)
    }

    @Test("A prefix that is a whole key lists that key and the keys that extend it, nothing else")
    func prefixThatIsAKey() throws {
        let store = try store(["user.1", "user.1.theme", "user.10", "user.2", "user0", "user.", "use", "user.1\u{FFFF}"])
        #expect(try store.entries(prefix: "user.1", limit: 100).entries.map(\.name) == ["user.1", "user.1.theme", "user.10", "user.1\u{FFFF}"])
        #expect(try allPages(store, prefix: "user.1", limit: 1).keys == ["user.1", "user.1.theme", "user.10", "user.1\u{FFFF}"])
        #expect(try store.entries(prefix: "user.", limit: 100).entries.count == 6)
        #expect(try store.entries(prefix: "nothing", limit: 100).entries.isEmpty)
        #expect(try store.entries(prefix: "\u{10FFFF}", limit: 100).entries.isEmpty, "the highest character's prefix has an end")
    }

    @Test("after= naming a key removed since (or never stored) continues after where it would sort")
    func cursorOfARemovedKey() throws {
        let store = try store((0..<10).map { "k.\($0)" })
        let first = try store.entries(prefix: "k.", limit: 4)
        let cursor = try #require(first.next)
        #expect(String(decoding: cursor, as: UTF8.self) == "k.3")
        try store.remove(DefaultsKey<SQLiteValue?>("k.3"))
        try store.remove(DefaultsKey<SQLiteValue?>("k.4"))
        try store.set(.integer(99), for: DefaultsKey<SQLiteValue?>("k.35"))
        let second = try store.entries(prefix: "k.", after: cursor, limit: 4)
        #expect(second.entries.map(\.name) == ["k.35", "k.5", "k.6", "k.7"])
        let never = try store.entries(after: Data("k.55".utf8), limit: 100)
        #expect(never.entries.map(\.name) == ["k.6", "k.7", "k.8", "k.9"] && never.next == nil)
    }

    @Test("containing matches a substring anywhere, ASCII letters in either case, other characters and SQL wildcards literally")
    func containing() throws {
        let store = try store(["user.1.Theme", "user.2.theme", "user.2.font", "a%b", "ab", "a_b", "it's", "\u{C9}t\u{E9}", "back\\slash"])
        #expect(try store.entries(containing: "THEME", limit: 100).entries.map(\.name) == ["user.1.Theme", "user.2.theme"])
        #expect(try store.entries(prefix: "user.2", containing: "H", limit: 100).entries.map(\.name) == ["user.2.theme"])
        #expect(try store.entries(containing: "%", limit: 100).entries.map(\.name) == ["a%b"])
        #expect(try store.entries(containing: "_", limit: 100).entries.map(\.name) == ["a_b"])
        #expect(try store.entries(containing: "'", limit: 100).entries.map(\.name) == ["it's"])
        #expect(try store.entries(containing: "\\", limit: 100).entries.map(\.name) == ["back\\slash"])
        #expect(try store.entries(containing: "\u{E9}", limit: 100).entries.map(\.name) == ["\u{C9}t\u{E9}"])
        #expect(try store.entries(containing: "\u{C9}T", limit: 100).entries.map(\.name) == ["\u{C9}t\u{E9}"])
        #expect(try store.entries(containing: "', 1); DROP TABLE defaults; --", limit: 100).entries.isEmpty)
        #expect(try store.entries(containing: "", limit: 100).entries.count == 9, "an empty substring filters nothing")
        #expect(try allPages(store, containing: "t", limit: 1).keys.count == 5)
    }

    @Test("A key that is not valid UTF-8 is listed by its exact bytes, in byte order, and pages on past it", .requiresSQLiteShell)
    func keyNotValidUTF8() async throws {
        let store = try store(["a", "\u{FFFD}key", "zz"])
        try await sqlite3(directory.database, "INSERT INTO defaults(key, value) VALUES (CAST(x'ff6b6579' AS TEXT), 'v'), (CAST(x'61ff' AS TEXT), 'w')")
        let listed = try await store.entries(limit: 100).entries
        #expect(listed.map(\.keyBytes) == [Data("a".utf8), Data([0x61, 0xFF]), Data("zz".utf8), Data("\u{FFFD}key".utf8), Data([0xFF, 0x6B, 0x65, 0x79])])
        #expect(listed.map(\.key) == ["a", nil, "zz", "\u{FFFD}key", nil])
        #expect(listed[4].value == .text("v") && listed[4].name == "\u{FFFD}key")
        let first = try await store.entries(limit: 2)
        #expect(first.next == Data([0x61, 0xFF]))
        let rest = try await store.entries(after: first.next, limit: 2)
        #expect(rest.entries.map(\.keyBytes) == [Data("zz".utf8), Data("\u{FFFD}key".utf8)] && rest.next != nil)
        let last = try await store.entries(after: rest.next, limit: 2)
        #expect(last.entries.map(\.keyBytes) == [Data([0xFF, 0x6B, 0x65, 0x79])] && last.next == nil)
        await #expect(try store.entries(prefix: "a", limit: 100).entries.map(\.keyBytes) == [Data("a".utf8), Data([0x61, 0xFF])])
        await #expect(try store.entries(containing: "KEY", limit: 100).entries.count == 2)
    }

    @Test("A limit below 1 or above the maximum is a misuse, named; nothing is read")
    func limits() throws {
        let store = try store(["a"])
        for limit in [0, -1, DefaultsStore.maximumPageLimit + 1] {
            let error = #expect(throws: DefaultsError.self) { try store.entries(limit: limit) }
            #expect(error?.code == .misuse, "limit \(limit)")
        }
        #expect(try store.entries(limit: DefaultsStore.maximumPageLimit).entries.count == 1)
    }

    @Test("The async form answers what the sync form does, and throws what it throws")
    func asyncForm() async throws {
        let store = try store((0..<50).map { "n.\($0)" })
        // In an async context the async overload is chosen; a closure reaches the sync one.
        let sync = try { try store.entries(prefix: "n.1", limit: 3) }()
        let async = try await store.entries(prefix: "n.1", limit: 3)
        #expect(sync == async)
        let next = try await store.entries(prefix: "n.1", after: async.next, limit: 100)
        #expect(next.entries.count == 8 && next.next == nil)
        let misuse = await #expect(throws: DefaultsError.self) { try await store.entries(limit: 0) }
        #expect(misuse?.code == .misuse)
        try store.close()
        let closed = await #expect(throws: DefaultsError.self) { try await store.entries(limit: 5) }
        #expect(closed?.code == .closed)
    }

    @Test("forEachEntry visits every row under the prefix in key order, one snapshot; a throwing body ends it and is rethrown")
    func forEach() throws {
        let keys = (0..<2_000).map { "p.\($0)" } + ["q.1", "o.1"]
        let store = try store(keys)
        var seen: [String] = []
        try store.forEachEntry(prefix: "p.") { seen.append($0.name) }
        #expect(seen == keys.filter { $0.hasPrefix("p.") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        var all = 0
        try store.forEachEntry { _ in all += 1 }
        #expect(all == keys.count)
        struct Stop: Error {}
        var visited = 0
        #expect(throws: Stop.self) {
            try store.forEachEntry { _ in
                visited += 1
                if visited == 10 { throw Stop() }
            }
        }
        #expect(visited == 10)
        #expect(try store.entries(prefix: "q.", limit: 5).entries.count == 1, "the store is usable after a body threw")
    }
}

#if Console && Prefs
import DefaultsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLiteDefaults
import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// `GET api/keys?prefix=P&contains=S&limit=N&after=KEY`: pages in key order with a `next`
/// cursor, filters applied by the server, and the edges a cursor meets.
@Suite("Console key list paging", .offThePool)
struct ConsoleKeysPagingTests {
    /// One answer of the list: its keys (as the API names them), `next` and `nextHex`.
    struct Page {
        var keys: [String]
        var entries: [[String: Any]]
        var next: String?
        var nextHex: String?
    }

    static func page(_ client: ConsoleTestClient, _ uri: String) async throws -> Page {
        try await client.execute(uri: uri, method: .get) { response in
            #expect(response.status == .ok, "\(uri): \(response.body.text)")
            let json = try #require(parsedJSON(response.body) as? [String: Any], "\(uri)")
            let entries = try #require(json["keys"] as? [[String: Any]])
            #expect(json["history"] as? Bool == true)
            #expect((json["next"] == nil) == (json["nextHex"] == nil), "next and nextHex come together")
            return Page(keys: entries.compactMap { $0["key"] as? String }, entries: entries,
                        next: json["next"] as? String, nextHex: json["nextHex"] as? String)
        }
    }

    /// Every key, following `next` (as `after=`) or `nextHex` (as `afterHex=`) from `first`.
    static func walk(_ client: ConsoleTestClient, _ first: String, hex: Bool = false) async throws -> (keys: [String], pages: [Int]) {
        var keys: [String] = [], sizes: [Int] = []
        var uri: String? = first
        while let current = uri, sizes.count < 100 {
            let page = try await page(client, current)
            keys += page.keys
            sizes.append(page.keys.count)
            let separator = first.contains("?") ? "&" : "?"
            if hex {
                uri = page.nextHex.map { first + separator + "afterHex=" + $0 }
            } else {
                uri = page.next.map { first + separator + "after=" + encodedKey($0) }
            }
            if let next = page.next { #expect(next == page.keys.last, "next names the page's last key") }
        }
        return (keys, sizes)
    }

    static func byBytes(_ keys: [String]) -> [String] { keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) } }

    @Test("500 keys a page by default, 5,000 at most; each key once across pages, in key order; the exactly full last page has no next",
          arguments: ConsoleMount.all)
    func defaultAndMaximum(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let keys = (0..<5_050).map { "user.\($0).theme" }
        try await fixture.store.transaction { transaction in
            for key in keys { try transaction.set(.text("dark"), for: DefaultsKey<SQLiteValue?>(key)) }
        }
        try await fixture.test(.router) { client in
            let first = try await Self.page(client, "/api/keys")
            #expect(first.keys.count == 500 && first.keys == Array(Self.byBytes(keys).prefix(500)))
            let most = try await Self.page(client, "/api/keys?limit=100000")
            #expect(most.keys.count == 5_000 && most.next == most.keys.last)
            let rest = try await Self.page(client, "/api/keys?limit=100000&after=" + encodedKey(try #require(most.next)))
            #expect(rest.keys.count == 50 && rest.next == nil)
            let walked = try await Self.walk(client, "/api/keys?limit=1010")
            #expect(walked.keys == Self.byBytes(keys), "every key once, in key order")
            #expect(walked.pages == [1_010, 1_010, 1_010, 1_010, 1_010], "the exactly full last page says it is the last")
            let hexWalk = try await Self.walk(client, "/api/keys?limit=2000", hex: true)
            #expect(hexWalk.keys == Self.byBytes(keys) && hexWalk.pages == [2_000, 2_000, 1_050])
        }
    }

    @Test("prefix= a whole key lists it and the keys that extend it; contains= filters on the server, hostile strings as plain text",
          arguments: ConsoleMount.all)
    func filters(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let keys = ["user.7", "user.7.theme", "user.77.theme", "user.8.Theme", "a%b", "a'b", "<img src=x>", "a&b=c", "plain"]
        for key in keys { try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(key)) }
        try await fixture.test(.router) { client in
            #expect(try await Self.page(client, "/api/keys?prefix=user.7").keys == ["user.7", "user.7.theme", "user.77.theme"])
            #expect(try await Self.page(client, "/api/keys?prefix=user.7.").keys == ["user.7.theme"])
            #expect(try await Self.page(client, "/api/keys?prefix=nothing").keys.isEmpty)
            #expect(try await Self.page(client, "/api/keys?contains=THEME").keys == ["user.7.theme", "user.77.theme", "user.8.Theme"])
            #expect(try await Self.page(client, "/api/keys?prefix=user.&contains=8").keys == ["user.8.Theme"])
            for (needle, found) in [("%", ["a%b"]), ("'", ["a'b"]), ("<img", ["<img src=x>"]), ("&b=", ["a&b=c"]), ("%25", []),
                                    ("'; DROP TABLE defaults; --", []), ("_", [])] {
                #expect(try await Self.page(client, "/api/keys?contains=" + encodedKey(needle)).keys == found, "\(needle)")
            }
            let paged = try await Self.walk(client, "/api/keys?limit=1&contains=theme")
            #expect(paged.keys == ["user.7.theme", "user.77.theme", "user.8.Theme"] && paged.pages == [1, 1, 1])
        }
        #expect(try await fixture.store.entries().count == keys.count, "nothing was changed by a hostile filter")
    }

    @Test("after= naming a key removed since continues where it would sort; declared keys that are unset sit on their own page once",
          arguments: ConsoleMount.all)
    func cursorEdges(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        for index in 1...9 where index != 5 { try await fixture.store.set(.integer(Int64(index)), for: DefaultsKey<SQLiteValue?>("m.\(index)")) }
        try await fixture.store.declare(DefaultsDeclaration(key: "m.5", type: .int, defaultValue: .integer(5)))
        try await fixture.store.declare(DefaultsDeclaration(key: "m.91", type: .string))
        try await fixture.store.declare(DefaultsDeclaration(key: "m.0", type: .string))
        try await fixture.test(.router) { client in
            let walked = try await Self.walk(client, "/api/keys?limit=3")
            #expect(walked.keys == ["m.0", "m.1", "m.2", "m.3", "m.4", "m.5", "m.6", "m.7", "m.8", "m.9", "m.91"])
            #expect(walked.pages == [3, 3, 3, 2])
            let first = try await Self.page(client, "/api/keys?limit=4")
            #expect(first.next == "m.3")
            try await fixture.store.remove(DefaultsKey<SQLiteValue?>("m.3"))
            try await fixture.store.remove(DefaultsKey<SQLiteValue?>("m.4"))
            let second = try await Self.page(client, "/api/keys?limit=4&after=m.3")
            #expect(second.keys == ["m.5", "m.6", "m.7", "m.8"])
            #expect(second.entries.first?["declared"] as? Bool == true && second.entries.first?["defaultText"] as? String == "5")
            #expect(try await Self.page(client, "/api/keys?after=m.85").keys == ["m.9", "m.91"])
            #expect(try await Self.page(client, "/api/keys?after=zzz").keys.isEmpty)
        }
    }

    @Test("A key that is not UTF-8 is listed by keyHex in byte order; next names it by its escaped address and nextHex, and both page on past it",
          .requiresSQLiteShell, arguments: ConsoleMount.all)
    func keyNotValidUTF8(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        for key in ["a", "b", "\u{FFFD}"] { try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>(key)) }
        try await sqlite3(fixture.path, "INSERT INTO defaults(key, value) VALUES (CAST(x'61ff' AS TEXT), 'v'), (CAST(x'ff6b6579' AS TEXT), 'w')")
        try await fixture.test(.router) { client in
            let all = try await Self.page(client, "/api/keys")
            #expect(all.keys == ["a", #"a\x{FF}"#, "b", "\u{FFFD}", #"\x{FF}key"#])
            #expect(all.entries[1]["keyHex"] as? String == "61ff" && all.entries[4]["keyHex"] as? String == "ff6b6579")
            let first = try await Self.page(client, "/api/keys?limit=2")
            #expect(first.next == #"a\x{FF}"# && first.nextHex == "61ff")
            #expect(try await Self.page(client, "/api/keys?limit=2&after=" + encodedKey(#"a\x{FF}"#)).keys == ["b", "\u{FFFD}"])
            #expect(try await Self.page(client, "/api/keys?limit=2&afterHex=61ff").keys == ["b", "\u{FFFD}"])
            #expect(try await Self.walk(client, "/api/keys?limit=1").keys == all.keys)
            #expect(try await Self.walk(client, "/api/keys?limit=1", hex: true).keys == all.keys)
        }
    }

    @Test("A bad query is 400 with its reason: limit 0 or not a number, a parameter twice, after with afterHex, afterHex not hex",
          arguments: ConsoleMount.all)
    func badQueries(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.set(.integer(1), for: DefaultsKey<SQLiteValue?>("a"))
        try await fixture.test(.router) { client in
            for query in ["limit=0", "limit=-1", "limit=ten", "limit=1&limit=2", "prefix=a&prefix=b", "after=a&afterHex=61", "afterHex=6", "afterHex=zz"] {
                try await client.execute(uri: "/api/keys?" + query, method: .get) { response in
                    #expect(response.status == .badRequest, "\(query)")
                    let error = (parsedJSON(response.body) as? [String: Any])?["error"] as? String
                    #expect(error?.isEmpty == false, "\(query)")
                }
            }
        }
    }
}
#endif

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

@Suite("Console history paging", .offThePool)
struct ConsoleHistoryPagingTests {
    @Test("a page holds 500 entries unless limit says, at most 5,000 whatever it asks; after=SEQ (or before=SEQ) pages on; a full page names the next cursor in X-History-Next and Link", arguments: ConsoleMount.all)
    func pages(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.store.transaction { transaction in
            for index in 0..<5_005 { try transaction.set(index, for: DefaultsKey<Int>("bulk.\(index)", default: 0)) }
        }
        for value in 0..<25 { try await fixture.store.set(.integer(Int64(value)), for: DefaultsKey<SQLiteValue?>("n")) }
        try await fixture.test(.router) { client in
            for (limit, expected) in [("5001", 5_000), ("100000", 5_000), (nil, 500)] {
                try await client.execute(uri: "/api/history" + (limit.map { "?limit=" + $0 } ?? ""), method: .get) { response in
                    #expect(response.status == .ok)
                    #expect((parsedJSON(response.body) as? [[String: Any]])?.count == expected, "limit=\(limit ?? "(none)")")
                    #expect(response.headers[HTTPField.Name("X-History-Next")!] != nil)
                    #expect(response.headers[HTTPField.Name("X-History-Next-Before")!] == response.headers[HTTPField.Name("X-History-Next")!])
                }
            }
            try await client.execute(uri: "/api/history?after=5&before=5", method: .get) { response in
                #expect(response.status == .badRequest, "one cursor, under either name")
            }
            var seen: [Int] = []
            var cursor: String? = nil
            var pages = 0
            repeat {
                // The cursor under its name of today, then under its earlier one.
                let uri = "/api/history?key=n&limit=10" + (cursor.map { (pages == 1 ? "&after=" : "&before=") + $0 } ?? "")
                cursor = try await client.execute(uri: uri, method: .get) { response in
                    #expect(response.status == .ok)
                    let entries = try #require(parsedJSON(response.body) as? [[String: Any]])
                    seen += entries.compactMap { $0["value"] as? Int }
                    let next = response.headers[HTTPField.Name("X-History-Next")!]
                    if entries.count == 10 {
                        #expect(next == (entries.last?["seq"] as? Int).map(String.init))
                        #expect(response.headers[HTTPField.Name("Link")!] == "</api/history?key=n&limit=10&after=\(next ?? "")>; rel=\"next\"")
                    } else {
                        #expect(next == nil)
                    }
                    return next
                }
                pages += 1
            } while cursor != nil && pages < 10
            #expect(seen == Array((0..<25).reversed()), "every change once, newest first, across pages")
            #expect(pages == 3)
        }
    }

    @Test("A long answer arrives whole, written in chunks: 600 entries of 16 KB", arguments: ConsoleMount.all)
    func chunkedBody(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        let big = String(repeating: "y", count: 16_000)
        for index in 0..<600 { try await fixture.store.set(.text("\(index)" + big), for: DefaultsKey<SQLiteValue?>("doc")) }
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let response = try await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/api/history?limit=1000", timeout: .seconds(120)) }
            #expect(response.status == 200)
            #expect(response.header("Transfer-Encoding")?.lowercased() == "chunked", "streamed, not one buffer with a Content-Length")
            let entries = try #require(try JSONSerialization.jsonObject(with: response.body) as? [[String: Any]])
            #expect(entries.count == 600)
            #expect((entries.first?["value"] as? String)?.hasPrefix("599y") == true)
        }
    }
}
#endif

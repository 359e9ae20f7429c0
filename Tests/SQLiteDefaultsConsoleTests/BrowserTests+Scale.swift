#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

/// The browser suite at scale: a million keys on the first load, and the server-side filters.
extension BrowserTests {
    /// A file of `keys` keys named `user.N.theme` (N from 0), written by the sqlite3 shell
    /// for a million (the library's own writes would take minutes), by the library otherwise.
    static func storeWithKeys(_ keys: Int, in directory: TemporaryDirectory) async throws -> String {
        let database = directory.path + "/defaults.sqlite"
        let store = try DefaultsStore(path: database)
        if keys > 100_000 {
            try await store.set(.integer(0), for: DefaultsKey<SQLiteValue?>("user.0.theme"))
            _ = try await sqlite3(database, """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(keys - 1))
                INSERT INTO defaults(key, value) SELECT 'user.' || i || '.theme', i FROM n;
                """)
        } else {
            try await store.transaction { tx in
                for index in 0..<keys { tx[DefaultsKey<SQLiteValue?>("user.\(index).theme")] = .integer(Int64(index)) }
            }
        }
        try store.close()
        return database
    }

    @Test("First load with 1,000, 10,000 and 1,000,000 keys: the first page of rows is drawn, the time printed; scrolling draws the next",
          arguments: [1_000, 10_000, 1_000_000])
    func firstLoad(keys: Int) async throws {
        if keys > 100_000 { try #require(TestTier.hasSQLiteShell, "a million keys are written by the sqlite3 shell") }
        let directory = try TemporaryDirectory()
        let database = try await Self.storeWithKeys(keys, in: directory)
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(port)/?warm")  // warm: the first start of chromium's renderer is not the page's cost
        try await browser.open("http://127.0.0.1:\(port)/?load=\(keys)")
        _ = try await browser.waitFor("html[data-loaded-ms]", timeout: .seconds(60))
        let loaded = try #require(try await browser.script("return Number(document.documentElement.getAttribute('data-loaded-ms'))") as? Int)
        let rows = { try await browser.script("return document.querySelectorAll('tr[data-key]').length") as? Int ?? 0 }
        let first = try await rows()
        #expect(first >= 200 && first <= 400, "a window of rows, not all \(keys): \(first)")
        #expect(try await browser.find(Self.row("user.0.theme")) != nil)
        print("console first load with \(keys) keys: \(loaded) ms from navigation to the first \(first) rows in the page")
        // Scrolling to the end of the drawn rows reads and draws the next page.
        _ = try await browser.script("window.scrollTo(0, document.body.scrollHeight)")
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) { ((try? await rows()) ?? 0) > first }, "scrolling drew no more rows")
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }

    @Test("The filter boxes ask the server: a prefix and a substring find keys beyond the first page; a hostile filter is text")
    func serverFilter() async throws {
        let directory = try TemporaryDirectory()
        let database = try await Self.storeWithKeys(5_000, in: directory)
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(port)/")
        _ = try await browser.waitFor("html[data-loaded-ms]", timeout: .seconds(60))
        #expect(try await browser.find(Self.row("user.4999.theme")) == nil, "beyond the first page")
        // The keys shown, and the last list a wait below saw (for its message, which cannot await).
        var seen: [String] = []
        let shown = { (try? await browser.script("return Array.from(document.querySelectorAll('tr[data-key]')).filter((r) => !r.hidden).map((r) => r.dataset.key)") as? [String]) ?? [] }
        try await browser.type(try #require(try await browser.find("#prefix")), "user.4999")
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) { seen = await shown(); return seen == ["user.4999.theme"] }, "\(seen)")
        try await browser.clear(try #require(try await browser.find("#prefix")))
        try await browser.type(try #require(try await browser.find("#filter")), "99.THE")
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) { seen = await shown(); return seen.count == 50 && seen.allSatisfy { $0.contains("99.the") } },
                "\(seen)")
        for hostile in ["<img src=x onerror=alert(1)>", "%' OR 1=1 --", "&after=user", "\\x{FF}"] {
            try await browser.clear(try #require(try await browser.find("#filter")))
            try await browser.type(try #require(try await browser.find("#filter")), hostile)
            #expect(await waitUntilAwaiting(timeout: .seconds(60)) {
                seen = await shown()
                let emptyShown = (try? await browser.find("#empty:not([hidden])")) != nil
                return seen.isEmpty && emptyShown
            },
                    "\(hostile): \(seen)")
        }
        #expect(try await browser.script("return document.querySelectorAll('img').length") as? Int == 0)
        #expect(await browser.alertText() == nil)
        try await browser.clear(try #require(try await browser.find("#filter")))
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) { await shown().count >= 200 })
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }
}
#endif

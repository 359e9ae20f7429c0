#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

/// The browser suite across a server restart.
extension BrowserTests {
    @Test("The page reconnects by itself after the server went away, and shows every change made meanwhile")
    func reconnectsAndMissesNothing() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        let store = try DefaultsStore(path: database)
        let n = DefaultsKey<Int>("n", default: 0)
        store[n] = 0
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(port)/")
        _ = try await browser.waitFor(Self.row("n"))
        // The server goes away; changes commit while the page cannot hear them.
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
        for value in 1...3 { store[n] = value }
        store[DefaultsKey<String>("added", default: "")] = "while away"
        // The same address again: the page's EventSource finds it by itself, no reload.
        let again = try ServeProcess(database: database, ["--port", "\(port)"])
        #expect(await again.port() == port, "stderr: \(again.errorLines.all)")
        let shown = await waitUntilAwaiting(timeout: .seconds(60)) {
            guard let value = (try? await browser.find(Self.row("n") + " [data-role=value]")).flatMap({ $0 }) else { return false }
            return (try? await browser.text(value)) == "3"
        }
        #expect(shown, "the page did not show n = 3 after reconnecting")
        _ = try await browser.waitFor(Self.row("added"))
        // And it is live again: a change after the reconnect arrives as an event.
        store[n] = 4
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) {
            guard let value = (try? await browser.find(Self.row("n") + " [data-role=value]")).flatMap({ $0 }) else { return false }
            return (try? await browser.text(value)) == "4"
        })
        again.send(SIGTERM)
        #expect(await again.exitStatus() == 0)
    }
}
#endif

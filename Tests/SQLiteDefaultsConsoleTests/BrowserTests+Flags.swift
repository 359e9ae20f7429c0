#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
import Testing

/// The browser suite on a flagd flag: drawn as a flag, edited as one.
extension BrowserTests {
    @Test("A flagd flag is shown as a flag (state, variants, default variant, targeting); the state is toggled and the default variant picked, with a reason")
    func flagInBrowser() async throws {
        let directory = try TemporaryDirectory()
        let database = directory.path + "/defaults.sqlite"
        let flagFile = directory.path + "/flags.json"
        try #"""
        {"flags": {"new-checkout": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "off",
          "targeting": {"fractional": [["on", 10], ["off", 90]]}}}}
        """#.write(toFile: flagFile, atomically: true, encoding: .utf8)
        let load = try await runProcess(ServeProcess.executable, ["--db", database, "flags", "load", flagFile])
        #expect(load.status == 0, "\(load.error)")
        let store = try DefaultsStore(path: database)
        let key = DefaultsKey<SQLiteValue?>("flagd.flag.new-checkout")
        func flag() -> [String: Any]? {
            guard case .text(let text)? = try? store.value(for: key) else { return nil }
            return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
        }
        let serve = try ServeProcess(database: database)
        let port = try #require(await serve.port(), "stderr: \(serve.errorLines.all)")
        let browser = try await WebDriver()
        try await browser.open("http://127.0.0.1:\(port)/")

        let row = Self.row("flagd.flag.new-checkout")
        let state = try await browser.waitFor(row + " [data-role=flag-state]")
        #expect(try await browser.text(state) == "ENABLED")
        // In the order the stored flag lists them (the loader writes its own canonical text).
        let variants = try await browser.text(try #require(try await browser.find(row + " [data-role=flag-variants]")))
        #expect(variants.hasPrefix("variants ") && variants.contains("on: true") && variants.contains("off: false"), "\(variants)")
        #expect(try await browser.text(try #require(try await browser.find(row + " [data-role=flag-default]"))) == "default off")
        #expect(try await browser.text(try #require(try await browser.find(row + " [data-role=flag-targeting]"))).contains("fractional"))

        try await browser.type(try #require(try await browser.find(row + " [data-role=flag-reason]")), "INC-7: checkout errors")
        try await browser.click(try #require(try await browser.find(row + " [data-role=flag-toggle]")))
        #expect(await waitUntil(timeout: .seconds(60)) { flag()?["state"] as? String == "DISABLED" })
        #expect(flag()?["variants"] != nil && flag()?["targeting"] != nil, "the rest of the flag is kept")
        let toggled = try await store.history(keys: ["flagd.flag.new-checkout"], limit: 1).first
        #expect(toggled?.writer.reason == "INC-7: checkout errors")
        // The page redraws from the write's answer (and the event): the state shown follows.
        #expect(await waitUntilAwaiting(timeout: .seconds(60)) {
            (try? await browser.text(try #require(try await browser.find(row + " [data-role=flag-state]")))) == "DISABLED"
        })

        // The default variant, picked from the flag's variants.
        _ = try await browser.script("const s = document.querySelector('[data-key=\"flagd.flag.new-checkout\"] [data-role=flag-default-select]');"
                               + " s.value = 'on'; s.dispatchEvent(new Event('change'));")
        #expect(await waitUntil(timeout: .seconds(60)) { flag()?["defaultVariant"] as? String == "on" })
        #expect(flag()?["state"] as? String == "DISABLED")
        serve.send(SIGTERM)
        #expect(await serve.exitStatus() == 0)
    }
}
#endif

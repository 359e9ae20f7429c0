#if Console && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation

/// A headless Chromium driven over the W3C WebDriver protocol (chromedriver), with plain
/// HTTP from Swift: no Selenium, nothing from PyPI.
final class WebDriver {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    static let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let chromedriver = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var isAvailable: Bool { chromium != nil && chromedriver != nil }

    private let driver: ChildProcess
    private let port: Int
    private var session = ""
    static let elementKey = "element-6066-11e4-a52e-4f735466cecf"

    /// Starts chromedriver on a free port and opens a headless session.
    init() async throws {
        guard let chromium = Self.chromium, let chromedriver = Self.chromedriver else { throw Failure(description: "chromium is not installed") }
        port = try Self.freePort()
        driver = try ChildProcess(chromedriver, ["--port=\(port)"])
        let port = self.port
        let ready = await waitUntilAwaiting(timeout: .seconds(30)) {
            (try? await onOwnThread { try RawHTTPConnection.request(port: port, "GET", "/status").status }) == 200
        }
        guard ready else { throw Failure(description: "chromedriver did not start") }
        let capabilities: [String: Any] = ["capabilities": ["alwaysMatch": [
            "browserName": "chrome",
            "goog:chromeOptions": ["binary": chromium, "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900"]],
        ]]]
        let value = try await command("POST", "/session", capabilities, timeout: .seconds(60))
        session = try Self.require((value as? [String: Any])?["sessionId"] as? String, "no session id")
    }

    deinit {
        // A deinit cannot await: the session's end is waited for here, once per browser test,
        // so that chromedriver is not killed while Chromium still runs.
        if !session.isEmpty { _ = try? Self.request(port: port, "DELETE", "/session/\(session)", nil, timeout: .seconds(30)) }
        driver.send(SIGKILL)
    }

    /// A port nothing listens on now.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, "127.0.0.1", &address.sin_addr)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw Failure(description: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func require<T>(_ value: T?, _ message: String) throws -> T {
        guard let value else { throw Failure(description: message) }
        return value
    }

    /// One WebDriver command; its `value`. The HTTP exchange, a blocking read of a socket,
    /// runs on a thread of its own (`onOwnThread`), not on the cooperative pool.
    @discardableResult
    func command(_ method: String, _ path: String, _ body: Any? = nil, timeout: Duration = .seconds(30)) async throws -> Any? {
        let data = try body.map { try JSONSerialization.data(withJSONObject: $0) }
        let port = self.port
        return try await onOwnThread { try Self.request(port: port, method, path, data, timeout: timeout) }
    }

    /// One WebDriver command over a connection of its own, blocking until the answer; its `value`.
    private static func request(port: Int, _ method: String, _ path: String, _ data: Data?, timeout: Duration) throws -> Any? {
        let response = try RawHTTPConnection.request(port: port, method, path, headers: data == nil ? [:] : ["Content-Type": "application/json"],
                                                     body: data ?? Data(), timeout: timeout)
        let json = try JSONSerialization.jsonObject(with: response.body.isEmpty ? Data("{}".utf8) : response.body) as? [String: Any]
        if response.status != 200 {
            throw Failure(description: "\(method) \(path) → \(response.status): \(response.text.prefix(300))")
        }
        return json?["value"]
    }

    func open(_ url: String) async throws { try await command("POST", "/session/\(session)/url", ["url": url], timeout: .seconds(60)) }

    /// The first element matching a CSS selector, or nil.
    func find(_ selector: String) async throws -> String? {
        let value = try await command("POST", "/session/\(session)/elements", ["using": "css selector", "value": selector]) as? [[String: Any]]
        return value?.first?[Self.elementKey] as? String
    }

    /// Waits for an element matching `selector`.
    func waitFor(_ selector: String, timeout: Duration = .seconds(60)) async throws -> String {
        var found: String?
        _ = await waitUntilAwaiting(timeout: timeout) { found = try? await self.find(selector); return found != nil }
        return try Self.require(found, "no element matches \(selector)")
    }

    func click(_ element: String) async throws { try await command("POST", "/session/\(session)/element/\(element)/click", [String: Any]()) }
    func clear(_ element: String) async throws { try await command("POST", "/session/\(session)/element/\(element)/clear", [String: Any]()) }
    func type(_ element: String, _ text: String) async throws { try await command("POST", "/session/\(session)/element/\(element)/value", ["text": text]) }
    func text(_ element: String) async throws -> String { try await command("GET", "/session/\(session)/element/\(element)/text") as? String ?? "" }
    func isDisplayed(_ element: String) async throws -> Bool { try await command("GET", "/session/\(session)/element/\(element)/displayed") as? Bool ?? false }

    /// Runs a script in the page and returns its result.
    func script(_ source: String) async throws -> Any? {
        try await command("POST", "/session/\(session)/execute/sync", ["script": source, "args": [Any]()])
    }

    /// The text of an open alert, or nil when none is open.
    func alertText() async -> String? {
        (try? await command("GET", "/session/\(session)/alert/text")) as? String
    }

    /// Resizes the browser's window (CSS pixels), as a phone's screen would be.
    func setWindowSize(width: Int, height: Int) async throws {
        try await command("POST", "/session/\(session)/window/rect", ["width": width, "height": height])
    }

    /// A PNG of the page.
    func screenshot() async throws -> Data {
        let base64 = try Self.require(try await command("GET", "/session/\(session)/screenshot") as? String, "no screenshot")
        return try Self.require(Data(base64Encoded: base64), "bad screenshot")
    }
}
#endif

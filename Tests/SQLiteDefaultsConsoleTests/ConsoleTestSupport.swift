#if Console && Prefs
import DefaultsTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SQLiteDefaults
import SQLiteDefaultsConsole

/// A store in a temporary directory and a console over it, mounted at `prefix` in a
/// Hummingbird router or (``test(_:_:)`` on the Vapor mount) in a Vapor app.
// @unchecked Sendable: every stored property is a `let` set in `init`; the temporary directory
// is only read (its path) until it is removed in its own deinit, after the last test use.
final class ConsoleFixture: @unchecked Sendable {
    let directory: TemporaryDirectory
    let store: DefaultsStore
    let console: DefaultsConsole
    let app: Application<RouterResponder<BasicRequestContext>>
    let mount: ConsoleMount
    let prefix: String

    init(mount: ConsoleMount = .hummingbird, configuration: DefaultsConsole.Configuration = .init(), prefix: String = "") throws {
        self.mount = mount
        self.prefix = prefix
        directory = try TemporaryDirectory()
        store = try DefaultsStore(path: directory.path + "/defaults.sqlite")
        console = DefaultsConsole(store: store, configuration: configuration)
        let router = Router()
        console.addRoutes(to: router, atPath: prefix)
        app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }

    /// Closes the store before the directory goes, so it never sees its file deleted.
    deinit { try? store.close() }

    var path: String { directory.path + "/defaults.sqlite" }

    /// The stored value of `key`, read through a second store (what another process sees).
    func stored(_ key: String) throws -> SQLiteValue? {
        let other = try DefaultsStore(path: path)
        return try other.value(for: DefaultsKey<SQLiteValue?>(key))
    }
}

/// JSON request headers, with an optional `Origin`.
func jsonHeaders(origin: String? = nil, extra: HTTPFields = [:]) -> HTTPFields {
    var headers = extra
    headers[.contentType] = "application/json"
    if let origin { headers[.origin] = origin }
    return headers
}

extension ByteBuffer {
    /// The buffer's bytes as UTF-8 text.
    var text: String { String(buffer: self) }
}

/// A JSON body parsed with Foundation, for assertions.
func parsedJSON(_ buffer: ByteBuffer?) -> Any? {
    guard let buffer else { return nil }
    return try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView), options: [.fragmentsAllowed])
}

/// `key` percent-encoded for a path segment, `/` and `.` included.
func encodedKey(_ key: String) -> String {
    var allowed = CharacterSet.alphanumerics
    allowed.insert(charactersIn: "-_~")
    return key.addingPercentEncoding(withAllowedCharacters: allowed) ?? key
}
#endif

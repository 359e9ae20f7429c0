import ArgumentParser
import Foundation
import Hummingbird
import Logging
import PrefsFormats
import SQLiteDefaults
import SQLiteDefaultsConsole

/// `prefs serve [--bind ADDR] [--port N] [--token-file FILE]`
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a live web console for the database until interrupted.",
        discussion: """
            Serves a page that shows every key with its type and value, changes live when any \
            writer commits, and edits, adds and removes keys; plus a JSON API under /api/ and \
            an event stream at /api/events. The first line on standard output names the \
            address: `prefs: serving PATH at http://HOST:PORT/`. It binds 127.0.0.1 unless \
            --bind says otherwise; any address that is not loopback needs --token-file (a \
            file holding the token every request must carry, as `Authorization: Bearer TOKEN` \
            or by opening the page once with ?token=TOKEN). --port 0 picks a free port. A \
            start that cannot happen (an address that is not an IP address, a token file \
            that cannot be read or is empty, a port in use) is one line and exit status 1. \
            Stops and exits 0 on SIGINT (Ctrl-C) or SIGTERM.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The IP address to listen on (default: 127.0.0.1; localhost means 127.0.0.1).", valueName: "addr"))
    var bind: String = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "n"))
    var port: Int = 8765

    @Option(help: ArgumentHelp("A file holding the token requests must carry; needed for any address that is not loopback.", valueName: "file"))
    var tokenFile: String?

    func run() async throws {
        let address = try ListenAddress(bind)
        guard (0...65535).contains(port) else {
            throw PrefsError("--port must be from 0 to 65535 (got \(port))")
        }
        guard address.isLoopback || tokenFile != nil else {
            throw PrefsError("--bind \(bind) is not a loopback address: serving it needs --token-file")
        }
        let token = try tokenFile.map(Self.readToken)
        let store = try storeOptions.openForWriting()
        let path = store.path ?? "memory"

        let console = DefaultsConsole(store: store, configuration: .init(token: token, allowedHosts: address.servedHostNames()))
        let router = Router()
        console.addRoutes(to: router)
        let logger = Logger(label: "prefs.serve", factory: { _ in SwiftLogNoOpLogHandler() })
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(address.text, port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let line = "prefs: serving \(ValueFormatting.escaped(path)) at http://\(address.urlHost):\(port)/"
                try? Console.out(line)
            },
            logger: logger
        )
        do {
            try await app.runService()
        } catch {
            throw PrefsError("cannot serve on \(address.urlHost):\(port): \(Self.reason(error))")
        }
        console.closeEventStreams()
        withExtendedLifetime(store) {}
    }

    /// The token in `path`: its first line, surrounding whitespace trimmed.
    /// - Throws: `PrefsError` when the file cannot be read or holds no token.
    static func readToken(at path: String) throws -> String {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? "it cannot be read"
            throw PrefsError("cannot read the token file \(ValueFormatting.quoted(path)): \(ValueFormatting.oneLine(reason))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw PrefsError("the token file \(ValueFormatting.quoted(path)) is not UTF-8 text")
        }
        let token = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        guard !token.isEmpty else {
            throw PrefsError("the token file \(ValueFormatting.quoted(path)) holds no token")
        }
        return token
    }

    /// The failure of a start in words: "address already in use", not NIO's errno dump.
    static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("Address already in use") || text.contains("EADDRINUSE") { return "the port is already in use" }
        if text.contains("Cannot assign requested address") { return "this machine has no such address" }
        if text.contains("Permission denied") { return "permission denied (ports below 1024 need privileges)" }
        return ValueFormatting.oneLine(text)
    }
}

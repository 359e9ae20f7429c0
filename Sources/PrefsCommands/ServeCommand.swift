#if Prefs && Console
import ArgumentParser
import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import PrefsFormats
import SQLiteDefaults
import SQLiteDefaultsConsole

/// `prefs serve [--bind ADDR] [--port N] [--token-file FILE] [--tokens FILE]`
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a live web console for the database until interrupted.",
        discussion: """
            Serves a page that shows every key with its type and value, changes live when any \
            writer commits, and edits, adds and removes keys; plus a JSON API under /api/ and \
            an event stream at /api/events. The first line on standard output names the \
            address: `prefs: serving PATH at http://HOST:PORT/`. It binds 127.0.0.1 unless \
            --bind says otherwise; any address that is not loopback needs --tokens or \
            --token-file. --tokens FILE names people and services, each with a token, a role \
            (read, write or admin) and key prefixes (see `prefs token add`); the file is read \
            again when it changes, and while it is malformed or others can read it none of its \
            tokens is accepted. --token-file FILE holds one token, an admin's (named \
            token-file); given with --tokens, both are accepted. Requests carry a token as \
            `Authorization: Bearer TOKEN` or by opening the page once with ?token=TOKEN; only \
            the owner may read either file: chmod 600. Without a token, a loopback console \
            serves only the user running it: a connection from another user's socket gets \
            403. --port 0 picks a free port. A start that cannot happen (an address that is \
            not an IP address, a token file or tokens file that is missing, cannot be read, is \
            empty, malformed or that others can read, a port in use) is one line and exit \
            status 1. A connection that sends no complete request head for \
            \(Int(idleTimeout)) seconds, or idles that long between requests, is closed; so is one \
            whose request body does not arrive whole within \(Int(idleTimeout)) seconds of its head, \
            or whose client reads nothing of a response for \(Int(idleTimeout)) seconds; at most \
            \(maximumConnections) connections are open at once. Stops and exits 0 on SIGINT \
            (Ctrl-C) or SIGTERM.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Option(help: ArgumentHelp("The IP address to listen on (default: 127.0.0.1; localhost means 127.0.0.1).", valueName: "addr"))
    var bind: String = "127.0.0.1"

    @Option(help: ArgumentHelp("The port to listen on; 0 picks a free one.", valueName: "n"))
    var port: Int = 8765

    @Option(help: ArgumentHelp("A file holding the token requests must carry; needed for any address that is not loopback.", valueName: "file"))
    var tokenFile: String?

    @Option(help: ArgumentHelp("A tokens file (prefs token add): names, roles and key prefixes; read again when it changes.", valueName: "file"))
    var tokens: String?

    /// Seconds a connection may take to send a request head, or stay idle between requests;
    /// and a request's body to arrive after its head, or a response to be left unread
    /// (``RequestDeadlineHandler``).
    static let idleTimeout: Int64 = 15
    /// Connections open at once; more wait in the listen backlog until one closes.
    static let maximumConnections = 256

    func run() async throws {
        // The console's writes are recorded as this program's: "prefs serve", not "prefs", so
        // the history tells an edit in the console from a `prefs write` of the same user, even
        // without a token to name the operator. Set before the store is opened, which is when
        // the writer's identity is first read.
        ProcessInfo.processInfo.processName = "prefs serve"
        let address = try ListenAddress(bind)
        guard (0...65535).contains(port) else {
            throw PrefsError("--port must be from 0 to 65535 (got \(port))")
        }
        guard address.isLoopback || tokenFile != nil || tokens != nil else {
            throw PrefsError("--bind \(bind) is not a loopback address: serving it needs --tokens or --token-file")
        }
        let token = try tokenFile.map(Self.readToken)
        let tokensFile = try tokens.map(Self.followTokens)
        let store = try storeOptions.openForWriting()
        let path = store.path ?? "memory"

        // Without a token, a loopback console is its owner's alone (the other local users
        // could not open the file either); with one, the token decides.
        let ownerOnly = token == nil && tokensFile == nil
        // --token-file's token is an admin's, named after the option.
        var fixed: ConsoleTokens?
        if let token {
            do {
                fixed = try ConsoleTokens(entries: [ConsoleTokens.Entry(name: "token-file", role: .admin, token: token)])
            } catch {
                throw PrefsError(error.message)
            }
        }
        var configuration = DefaultsConsole.Configuration(
            tokens: fixed, tokensFile: tokensFile, allowedHosts: address.servedHostNames(), onlyOwnerConnections: ownerOnly)
        // Each reveal of a secret is one line on stderr (who, which key; never the value).
        configuration.auditLog = { line in Console.err(line) }
        let console = DefaultsConsole(store: store, configuration: configuration)
        let router = Router(context: ServeRequestContext.self)
        console.addRoutes(to: router)
        let logger = Logger(label: "prefs.serve", factory: { _ in SwiftLogNoOpLogHandler() })
        let who = ownerOnly ? " for \(Self.userName()) only (other users get 403; --tokens or --token-file serves them)" : ""
        let app = Application(
            router: router,
            // The idle timer covers heads and idleness; the deadline handler (one per
            // connection) the body a head announced and a response the client stops reading.
            server: .http1(configuration: .init(
                additionalChannelHandlers: [RequestDeadlineHandler(bodyTimeout: .seconds(Self.idleTimeout),
                                                                   writeTimeout: .seconds(Self.idleTimeout))],
                idleTimeout: .seconds(Self.idleTimeout))),
            configuration: .init(address: .hostname(address.text, port: port), serverName: nil,
                                 availableConnectionsDelegate: MaximumAvailableConnections(Self.maximumConnections, logger: logger)),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let line = "prefs: serving \(ValueFormatting.escaped(path)) at http://\(address.urlHost):\(port)/" + who
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
    /// - Throws: `PrefsError` when the file cannot be read, holds no token, or is not private:
    ///   readable by its group or others, or owned by another user (as libpq refuses a
    ///   `.pgpass` that others can read — a token others can read is everyone's).
    static func readToken(at path: String) throws -> String {
        var status = stat()
        if stat(path, &status) == 0 {
            let mode = String(status.st_mode & 0o7777, radix: 8)
            if status.st_uid != geteuid() {
                throw PrefsError("the token file \(ValueFormatting.quoted(path)) belongs to another user (uid \(status.st_uid), mode 0\(mode)): it must be yours, with mode 600")
            }
            if status.st_mode & 0o044 != 0 {
                throw PrefsError("the token file \(ValueFormatting.quoted(path)) can be read by others (mode 0\(mode)): chmod 600 it")
            }
        }
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

    /// The tokens file at `path`, followed while serving: a problem that appears later (the
    /// file malformed or made readable by others) is printed once on standard error, and so is
    /// its end.
    /// - Throws: `PrefsError` with the file's problem now (missing, unreadable, not private,
    ///   malformed, no token).
    static func followTokens(at path: String) throws -> ConsoleTokensFile {
        do {
            return try ConsoleTokensFile(path: path) { problem in
                Console.err("prefs: " + (problem.map { ValueFormatting.oneLine($0) + "; refusing its tokens until it is fixed" }
                    ?? "the tokens file \(ValueFormatting.quoted(path)) is valid again"))
            }
        } catch {
            throw PrefsError(error.message)
        }
    }

    /// The name of the user running this process (its uid when it has none).
    static func userName() -> String {
        guard let entry = getpwuid(geteuid()), let name = entry.pointee.pw_name else { return "uid \(geteuid())" }
        return String(cString: name)
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

/// The request context of `prefs serve`: Hummingbird's basic one plus the remote address, which
/// the console needs to tell whose socket a connection comes from.
struct ServeRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    /// The other end of the connection.
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
#endif

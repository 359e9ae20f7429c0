#if Fleet
import Foundation
import NIOSSL
import PostgresNIO
import SQLiteDefaults

/// A PostgreSQL connection URL as libpq and `prefs sync --postgres` take it:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=MODE]`.
///
/// ```swift
/// let url = try PostgresURL("postgres://app:secret@db.internal:5432/prefs?sslmode=require")
/// let client = PostgresClient(configuration: url.configuration)
/// print(url)   // postgres://app:***@db.internal:5432/prefs?sslmode=require
/// ```
///
/// - `postgresql://` works too; the port defaults to 5432; user and password are
///   percent-decoded; an IPv6 host is written in brackets.
/// - `sslmode`: `disable`; `allow` and `prefer` (the default: TLS when the server offers it,
///   certificates not checked, as libpq does); `require` (TLS or no connection; the
///   certificate is not checked, as libpq does); `verify-ca` (checked against the system's
///   roots, or `sslrootcert=FILE`); `verify-full` (and the host name).
/// - Also understood: `connect_timeout` (seconds) and `application_name`.
public struct PostgresURL: Sendable, CustomStringConvertible {
    /// The client configuration the URL describes.
    public private(set) var configuration: PostgresClient.Configuration
    /// The URL with its password replaced by `***`, for logs and messages.
    public let description: String
    /// The server's host name or address, as the URL gives it (IPv6 without brackets).
    public let host: String
    /// The server's port (5432 unless the URL says otherwise).
    public let port: Int
    /// The user name.
    public let user: String
    /// The database name.
    public let database: String
    /// Whether the URL itself carries a password (which every local user can read in the
    /// process list when the URL is a command-line argument; see ``PostgresPassword``).
    public let hasPassword: Bool
    /// The same settings for one `PostgresConnection` (``DefaultsPostgresSync/probe(_:logger:)``).
    private(set) var connectionConfiguration: PostgresConnection.Configuration

    /// Parses `string`.
    /// - Throws: `DefaultsError` with code `.invalidConfiguration` and a message naming what
    ///   is wrong (scheme, user, host, port, database, or a parameter), never echoing the password.
    public init(_ string: String) throws {
        guard let components = URLComponents(string: string), let scheme = components.scheme else {
            throw Self.invalid("is not a URL; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw Self.invalid("has the scheme '\(scheme)'; expected postgres:// or postgresql://")
        }
        guard let user = components.user, !user.isEmpty else {
            throw Self.invalid("names no user; expected postgres://USER@HOST/DATABASE")
        }
        guard var host = components.host, !host.isEmpty else {
            throw Self.invalid("names no host; expected postgres://USER@HOST/DATABASE")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else {
            throw Self.invalid("has the port \(port), outside 1…65535")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty, !database.contains("/") else {
            throw Self.invalid("names no database; expected postgres://USER@HOST/DATABASE")
        }
        let password = components.password
        self.host = host
        self.port = port
        self.user = user
        self.database = database
        hasPassword = password != nil

        var tls = PostgresClient.Configuration.TLS.prefer(Self.unverified())
        var mode = "prefer"
        var rootCertificate: String?
        var options = PostgresClient.Configuration.Options()
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                mode = value
            case "sslrootcert":
                rootCertificate = value
            case "connect_timeout":
                guard let seconds = Int(value), seconds > 0 else {
                    throw Self.invalid("has connect_timeout=\(value); expected a positive number of seconds")
                }
                options.connectTimeout = .seconds(seconds)
            case "application_name":
                options.additionalStartupParameters.append(("application_name", value))
            default:
                throw Self.invalid("has the parameter '\(item.name)', which is not understood (sslmode, sslrootcert, connect_timeout, application_name are)")
            }
        }
        switch mode {
        case "disable":
            tls = .disable
        case "allow", "prefer":
            tls = .prefer(Self.unverified())
        case "require", "verify-ca", "verify-full":
            tls = .require(Self.context(for: mode, rootCertificate: rootCertificate))
        default:
            throw Self.invalid("has sslmode=\(mode); expected disable, allow, prefer, require, verify-ca or verify-full")
        }
        var configuration = PostgresClient.Configuration(host: host, port: port, username: user, password: password,
                                                         database: database, tls: tls)
        configuration.options = options
        self.configuration = configuration
        let connectionTLS: PostgresConnection.Configuration.TLS
        do {
            switch mode {
            case "disable": connectionTLS = .disable
            case "allow", "prefer": connectionTLS = .prefer(try NIOSSLContext(configuration: Self.unverified()))
            default: connectionTLS = .require(try NIOSSLContext(configuration: Self.context(for: mode, rootCertificate: rootCertificate)))
            }
        } catch {
            throw Self.invalid("asks for TLS settings that cannot be used: \(error)")
        }
        var single = PostgresConnection.Configuration(host: host, port: port, username: user, password: password,
                                                      database: database, tls: connectionTLS)
        single.options.connectTimeout = TimeAmount.seconds(Int64(options.connectTimeout.components.seconds))
        for parameter in options.additionalStartupParameters { single.options.additionalStartupParameters.append(parameter) }
        connectionConfiguration = single

        var shown = URLComponents()
        shown.scheme = scheme
        shown.user = user
        shown.host = components.host
        shown.port = components.port
        shown.path = components.path
        shown.queryItems = components.queryItems
        var text = shown.string ?? "\(scheme)://\(user)@\(host)"
        if password != nil, let at = text.firstIndex(of: "@") {
            text.insert(contentsOf: ":***", at: at)
        }
        description = text
    }

    /// The same URL with `password` for its user: what ``PostgresPassword/resolve(for:passwordFile:environment:warn:)``
    /// found outside the URL. ``description`` is unchanged and never shows it.
    ///
    /// ```swift
    /// let url = try PostgresURL("postgres://app@db/prefs").withPassword(secret)
    /// ```
    public func withPassword(_ password: String) -> PostgresURL {
        var url = self
        url.configuration.password = password
        url.connectionConfiguration.password = password
        return url
    }

    /// The TLS context of a mode that requires TLS: libpq's `require` checks no certificate.
    private static func context(for mode: String, rootCertificate: String?) -> TLSConfiguration {
        guard mode != "require" else { return unverified() }
        var context = TLSConfiguration.makeClientConfiguration()
        context.certificateVerification = mode == "verify-ca" ? .noHostnameVerification : .fullVerification
        if let rootCertificate { context.trustRoots = .file(rootCertificate) }
        return context
    }

    private static func unverified() -> TLSConfiguration {
        var context = TLSConfiguration.makeClientConfiguration()
        context.certificateVerification = .none
        return context
    }

    private static func invalid(_ problem: String) -> DefaultsError {
        DefaultsError(.invalidConfiguration, "the PostgreSQL URL \(problem)")
    }
}
#endif

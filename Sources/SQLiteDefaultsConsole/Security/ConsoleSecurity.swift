#if Console
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import PrefsFormats

/// The console's security rules, one middleware in front of every route (page, assets, API,
/// events), checked in this order:
///
/// 1. `Host` must be one the console serves (DNS rebinding), its address compared in one
///    canonical form → 403.
/// 2. With ``DefaultsConsole/Configuration/onlyOwnerConnections``: the other end of the
///    connection is a socket of the user running the server → else 403.
/// 3. With a token: `Authorization: Bearer TOKEN`, or the session cookie that `?token=TOKEN`
///    opens (that request is answered by a redirect to the same path without the query) → else
///    401; a tokens file that cannot be used now → 403 naming the problem. The token's holder
///    (``ConsolePrincipal``) is then checked against the method: a `read` token may only `GET`
///    → else 403. Without a token the principal is the one an outer middleware set in
///    ``ConsolePrincipal/current``, else the owner (full access).
/// 4. A write (PUT, POST, PATCH, DELETE) that carries `Origin` needs the page's own origin,
///    and one with a body needs `Content-Type: application/json` → else 403.
/// 5. A body over the limit → 413 (the `Content-Length` is checked here; a chunked body is
///    cut off where it passes the limit when it is read).
/// 6. A query item that does not percent-decode to UTF-8 (`?key=a.%FF`, a `%` without two hex
///    digits) → 400: read as sent it would name another key, reason or cursor than the one
///    meant, as a path segment that does not decode is refused; a key that is not UTF-8 is
///    named by its bytes (`keyHex=`).
///
/// The routes run with ``ConsolePrincipal/current`` set to the request's principal; the key
/// routes check it against the key they change (a `write` token's prefixes).
///
/// Every response carries a Content-Security-Policy without inline scripts, `nosniff`, and no
/// referrer.
///
/// Knows no web framework: it reads a ``ConsoleRequest`` and answers a ``ConsoleResponse``, so
/// the Hummingbird and Vapor adapters apply the same rules.
struct ConsoleSecurity: Sendable {
    let configuration: DefaultsConsole.Configuration
    /// The sessions `?token=` opened, shared by every route of this console.
    let sessions: ConsoleSessions
    /// ``DefaultsConsole/Configuration/allowedHosts``, each in ``HostName/canonical(_:)`` form.
    let allowedHosts: Set<String>?
    /// Every token the configuration names.
    let authenticator: ConsoleAuthenticator

    init(configuration: DefaultsConsole.Configuration, sessions: ConsoleSessions, authenticator: ConsoleAuthenticator) {
        self.configuration = configuration
        self.sessions = sessions
        self.authenticator = authenticator
        self.allowedHosts = configuration.allowedHosts.map { Set($0.map(HostName.canonical)) }
    }

    /// `Host`, for requests that carry it as a field (an HTTP/1 server moves it to the
    /// request's authority; a client of the router alone may set both).
    static var hostField: HTTPField.Name { HTTPField.Name("Host")! }

    /// The session cookie's name for a request to `host`: it names the port, because a browser
    /// keeps one set of cookies for all the ports of a host, and two consoles on one host must
    /// not overwrite each other's.
    static func cookieName(host: String?) -> String {
        let port = host.flatMap(HostName.port).flatMap { Int($0) }
        return "sqlitedefaults_console" + (port.map { "_\($0)" } ?? "")
    }

    /// `next`'s response when the request passes the rules, else the refusal; either with the
    /// security headers.
    func handle(_ request: ConsoleRequest, next: (ConsoleRequest) async throws -> ConsoleResponse) async -> ConsoleResponse {
        var response: ConsoleResponse
        do {
            response = try await check(request, next: next)
        } catch is ConsoleRequest.BodyTooLarge {
            // A chunked body over the limit, which no Content-Length announced, is answered
            // like the other refusals: `{"error"}`, with the headers below.
            response = Self.refusal(.contentTooLarge, "the body is over \(configuration.maximumBodySize) bytes")
        } catch {
            response = DefaultsConsole.storeFailure(error)
        }
        Self.addSecurityHeaders(to: &response.headers)
        return response
    }

    private func check(_ request: ConsoleRequest, next: (ConsoleRequest) async throws -> ConsoleResponse) async throws -> ConsoleResponse {
        let host = (request.headers[Self.hostField] ?? request.authority)?.lowercased()
        if let allowedHosts {
            guard let host, allowedHosts.contains(HostName.canonical(host)) else {
                return Self.refusal(.forbidden, "this console does not serve the host \(host.map { "'\($0)'" } ?? "(none)")")
            }
        }
        if configuration.onlyOwnerConnections {
            guard Self.isOwnersConnection(request.remote) else {
                return Self.refusal(.forbidden, "this console serves only the user who runs it (uid \(geteuid())); others need a token (prefs serve --tokens or --token-file)")
            }
        }
        let principal: ConsolePrincipal
        var stillValid: ConsoleCredential.Validity?
        if authenticator.isRequired {
            switch authenticate(request, host: host) {
            case .success(let (credential, session)):
                principal = credential.principal
                let authenticator = self.authenticator, sessions = self.sessions
                stillValid = ConsoleCredential.Validity {
                    guard case .accepted = authenticator.check(credential) else { return false }
                    return session.map { sessions.credential(of: $0) != nil } ?? true
                }
            case .failure(let refusal): return refusal.response
            }
        } else {
            principal = ConsolePrincipal.current ?? .owner
        }
        guard principal.mayUse(method: request.method.rawValue) else {
            return Self.refusal(.forbidden, "\(principal.name.map { "'\($0)'" } ?? "this user") may only read (role read)")
        }
        if [.put, .post, .patch, .delete].contains(request.method) {
            if let origin = request.headers[.origin]?.lowercased() {
                guard let host, origin == "http://" + host || origin == "https://" + host else {
                    return Self.refusal(.forbidden, "writes are accepted only from the console's own page")
                }
            }
            if Self.hasBody(request) {
                let mediaType = request.headers[.contentType]?.split(separator: ";").first?
                    .trimmingCharacters(in: .whitespaces).lowercased()
                guard mediaType == "application/json" else {
                    return Self.refusal(.forbidden, "a write needs Content-Type: application/json")
                }
            }
        }
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > configuration.maximumBodySize {
            return Self.refusal(.contentTooLarge, "the body is over \(configuration.maximumBodySize) bytes")
        }
        if let name = Self.undecodableQueryItem(request.query) {
            let hint = name == "key" ? "; a key that is not UTF-8 is named by keyHex=HEX (its bytes, two hex digits each)" : ""
            return Self.refusal(.badRequest, "the query item \(ValueFormatting.quoted(name)) is not percent-encoded UTF-8 (each % starts two hex digits, and the bytes must be UTF-8)\(hint); nothing was done")
        }
        return try await ConsolePrincipal.$current.withValue(principal) {
            try await ConsoleCredential.$stillValid.withValue(stillValid) {
                try await next(request)
            }
        }
    }

    /// A response that ends a request before its route: a refusal, or the redirect that turns
    /// `?token=` into a cookie.
    struct Answer: Error {
        let response: ConsoleResponse
    }

    /// The credential the request carries (a bearer token, or an open session's cookie); else
    /// the response to send (401, 403 while the tokens file cannot be used, or the redirect
    /// that turns `?token=` into a cookie).
    private func authenticate(_ request: ConsoleRequest, host: String?) -> Result<(ConsoleCredential, session: String?), Answer> {
        let refusal = { (outcome: ConsoleAuthenticator.Outcome) -> Answer in
            switch outcome {
            case .unavailable(let message): return Answer(response: Self.refusal(.forbidden, message))
            case .refused(let message): return Answer(response: Self.refusal(.unauthorized, message))
            case .accepted: return Answer(response: Self.refusal(.unauthorized, ConsoleAuthenticator.wrongToken))
            }
        }
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            let given = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            let outcome = authenticator.authenticate(given)
            if case .accepted(let credential) = outcome { return .success((credential, nil)) }
            return .failure(refusal(outcome))
        }
        if let given = request.queryValue("token"), request.method == .get {
            let outcome = authenticator.authenticate(String(given))
            guard case .accepted(let credential) = outcome else { return .failure(refusal(outcome)) }
            return .failure(Answer(response: Self.cookieRedirect(path: request.path, name: Self.cookieName(host: host),
                                                                 session: sessions.open(for: credential))))
        }
        if let cookie = request.cookie(Self.cookieName(host: host)), let credential = sessions.credential(of: cookie) {
            let outcome = authenticator.check(credential)
            if case .accepted(let credential) = outcome { return .success((credential, cookie)) }
            if case .refused = outcome { sessions.close(cookie) }
            return .failure(refusal(outcome))
        }
        return .failure(Answer(response: Self.refusal(.unauthorized, "this console needs a token: Authorization: Bearer TOKEN, or open the page once with ?token=TOKEN")))
    }

    /// Whether the other end of the request's connection is a socket of the user running this
    /// process, as `/proc/net/tcp{,6}` says. False when the server does not know the remote
    /// address (a Hummingbird context that is not a `RemoteAddressRequestContext`), or the
    /// socket is not listed (not a TCP connection on this machine): a doubt refuses.
    static func isOwnersConnection(_ remote: ConsoleRequest.Endpoint?) -> Bool {
        guard let remote, let endpoint = SocketOwnerTable.Endpoint(ip: remote.ip, port: remote.port) else { return false }
        return SocketOwnerTable.current().owners(ofLocalEnd: endpoint) == [geteuid()]
    }

    /// 303 to `path` (the query dropped) with an HttpOnly, SameSite=Strict session cookie for
    /// the folder `path` is in, so the page and its API below it both send it.
    static func cookieRedirect(path: String, name: String, session: String) -> ConsoleResponse {
        let folder = path.hasSuffix("/") ? path : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
        var headers = HTTPFields()
        headers[.location] = path
        headers[.setCookie] = "\(name)=\(session); Path=\(folder.isEmpty ? "/" : folder); HttpOnly; SameSite=Strict"
        headers[.cacheControl] = "no-store"
        return ConsoleResponse(status: .seeOther, headers: headers)
    }

    /// The name (as sent) of the first query item whose name or value does not percent-decode
    /// to UTF-8; nil when every one does.
    static func undecodableQueryItem(_ query: String?) -> String? {
        guard let query else { return nil }
        for item in query.split(separator: "&") {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.contains(where: { $0.contains("%") && $0.removingPercentEncoding == nil }) {
                return parts[0].removingPercentEncoding ?? String(parts[0])
            }
        }
        return nil
    }

    /// Whether the request says it has a body.
    static func hasBody(_ request: ConsoleRequest) -> Bool {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { return length > 0 }
        return request.headers[.transferEncoding] != nil
    }

    /// `{"error": message}` with `status`.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> ConsoleResponse {
        ConsoleResponses.json(ConsoleJSON.error(message), status: status)
    }

    /// The headers every console response carries.
    static func addSecurityHeaders(to headers: inout HTTPFields) {
        headers[.contentSecurityPolicy] = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
    }
}
#endif

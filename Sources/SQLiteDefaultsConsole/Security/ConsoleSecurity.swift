import Foundation
import HTTPTypes
import Hummingbird

/// The console's security rules, one middleware in front of every route (page, assets, API,
/// events), checked in this order:
///
/// 1. `Host` must be one the console serves (DNS rebinding) → 403.
/// 2. With a token: `Authorization: Bearer TOKEN`, or the cookie that `?token=TOKEN` sets
///    (that request is answered by a redirect to the same path without the query) → else 401.
/// 3. A write (PUT, POST, PATCH, DELETE) that carries `Origin` needs the page's own origin,
///    and one with a body needs `Content-Type: application/json` → else 403.
/// 4. A body over the limit → 413 (the `Content-Length` is checked here; a chunked body is
///    cut off where it passes the limit when it is read).
///
/// Every response carries a Content-Security-Policy without inline scripts, `nosniff`, and no
/// referrer.
struct ConsoleSecurity<Context: RequestContext>: RouterMiddleware {
    let configuration: DefaultsConsole.Configuration

    /// `Host`, for requests that carry it as a field (an HTTP/1 server moves it to the
    /// request's authority; a client of the router alone may set both).
    static var hostField: HTTPField.Name { HTTPField.Name("Host")! }

    /// The cookie `?token=` sets.
    static var cookieName: String { "sqlitedefaults_console" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await check(request, context: context, next: next)
        } catch let error as any HTTPResponseError {
            // A refusal thrown below (a chunked body over the limit, which no Content-Length
            // announced) is answered like the others: `{"error"}`, with the headers below.
            let message = error.status == .contentTooLarge
                ? "the body is over \(configuration.maximumBodySize) bytes" : error.status.reasonPhrase
            response = Self.refusal(error.status, message)
        }
        Self.addSecurityHeaders(to: &response.headers)
        return response
    }

    private func check(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let host = (request.headers[Self.hostField] ?? request.head.authority)?.lowercased()
        if let allowed = configuration.allowedHosts {
            guard let host, allowed.contains(Self.hostName(of: host)) else {
                return Self.refusal(.forbidden, "this console does not serve the host \(host.map { "'\($0)'" } ?? "(none)")")
            }
        }
        if let token = configuration.token {
            if let response = authenticate(request, token: token) { return response }
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
        return try await next(request, context)
    }

    /// nil when the request carries the token; else the response to send (a 401, or the
    /// redirect that turns `?token=` into a cookie).
    private func authenticate(_ request: Request, token: String) -> Response? {
        let expected = Array(token.utf8)
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            let given = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            if ConstantTime.equal(Array(given.utf8), expected) { return nil }
            return Self.refusal(.unauthorized, "the token is not right")
        }
        if let given = request.uri.queryParameters["token"], request.method == .get {
            guard ConstantTime.equal(Array(String(given).utf8), expected) else {
                return Self.refusal(.unauthorized, "the token is not right")
            }
            return Self.cookieRedirect(path: request.uri.path, token: token)
        }
        if let cookie = request.cookies[Self.cookieName],
           ConstantTime.equal(Array(cookie.value.utf8), Array(Self.cookieValue(for: token).utf8)) {
            return nil
        }
        return Self.refusal(.unauthorized, "this console needs a token: Authorization: Bearer TOKEN, or open the page once with ?token=TOKEN")
    }

    /// The name part of a `Host` value, without its port: `127.0.0.1:8080` → `127.0.0.1`,
    /// `[::1]:8080` → `[::1]`. The name is what DNS rebinding changes; the port is not.
    static func hostName(of host: String) -> String {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") { return String(host[...end]) }
        guard let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon else { return host }
        return String(host[..<colon])
    }

    /// The cookie holds the token hex-encoded, so any token fits a cookie's character set.
    static func cookieValue(for token: String) -> String {
        token.utf8.map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// 303 to `path` (the query dropped) with an HttpOnly, SameSite=Strict cookie for the
    /// folder `path` is in, so the page and its API below it both send it.
    static func cookieRedirect(path: String, token: String) -> Response {
        let folder = path.hasSuffix("/") ? path : String(path[...(path.lastIndex(of: "/") ?? path.startIndex)])
        var headers = HTTPFields()
        headers[.location] = path
        headers[.setCookie] = "\(cookieName)=\(cookieValue(for: token)); Path=\(folder.isEmpty ? "/" : folder); HttpOnly; SameSite=Strict"
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// Whether the request says it has a body.
    static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { return length > 0 }
        return request.headers[.transferEncoding] != nil
    }

    /// `{"error": message}` with `status`.
    static func refusal(_ status: HTTPResponse.Status, _ message: String) -> Response {
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

/// Comparison whose time does not depend on where two byte strings differ, so a token cannot
/// be guessed byte by byte from response times.
enum ConstantTime {
    /// Whether `a` and `b` are equal; reads every byte of the longer one whatever they hold.
    static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        let length = max(a.count, b.count)
        for index in 0..<length {
            let x = index < a.count ? a[index] : 0
            let y = index < b.count ? b[index] : 0
            difference |= x ^ y
        }
        return difference == 0
    }
}

#if Console
import Foundation
import HTTPTypes
import Logging

/// A request as the console sees it, whichever server carried it: each adapter (Hummingbird's
/// routes, Vapor's) builds one, and the console's security rules and routes read nothing else.
/// `package`, not public: the adapters are this package's own.
package struct ConsoleRequest: Sendable {
    /// The other end of a connection: an address and a port.
    package struct Endpoint: Sendable, Hashable {
        package var ip: String
        package var port: Int

        package init(ip: String, port: Int) {
            self.ip = ip
            self.port = port
        }
    }

    /// The body was longer than the limit it was collected with: 413.
    package struct BodyTooLarge: Error {
        package init() {}
    }

    package var method: HTTPRequest.Method
    /// The path as the client sent it (percent-encoded), mount prefix included: the page's
    /// redirect and the history's `Link` are built from it.
    package var path: String
    /// The query after `?`, percent-encoded as sent; nil without one.
    package var query: String?
    package var headers: HTTPFields
    /// The authority of the request line (HTTP/1 moves `Host` there), when it has one.
    package var authority: String?
    /// The `{key}` segment of `api/keys/{key}` and `api/keys/{key}/secret`, percent-encoded
    /// as sent; nil on the other routes.
    package var keyParameter: String?
    /// The connection's other end, when the server knows it (for the owner-only rule).
    package var remote: Endpoint?
    /// Where the console logs (a reveal without an audit log).
    package var logger: Logger
    /// Reads the whole body, at most `limit` bytes; throws ``BodyTooLarge`` past it.
    package var collectBody: @Sendable (_ limit: Int) async throws -> [UInt8]

    package init(method: HTTPRequest.Method, path: String, query: String?, headers: HTTPFields, authority: String?,
                 keyParameter: String?, remote: Endpoint?, logger: Logger,
                 collectBody: @escaping @Sendable (_ limit: Int) async throws -> [UInt8]) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.authority = authority
        self.keyParameter = keyParameter
        self.remote = remote
        self.logger = logger
        self.collectBody = collectBody
    }

    /// Every value of the query item `name`, percent-decoded (`+` stays `+`), in order. A value
    /// that does not decode is kept as sent, but never reaches a route: the security rules
    /// refuse such a query first (400).
    package func queryValues(_ name: String) -> [Substring] {
        guard let query else { return [] }
        return query.split(separator: "&").compactMap { item -> Substring? in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { return nil }
            guard parts.count == 2, !parts[1].isEmpty else { return "" }
            return parts[1].removingPercentEncoding.map { $0[...] } ?? parts[1]
        }
    }

    /// The first value of the query item `name`.
    package func queryValue(_ name: String) -> Substring? {
        queryValues(name).first
    }

    /// The value of the cookie `name` the request carries.
    package func cookie(_ name: String) -> String? {
        for field in headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name {
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }
        return nil
    }
}
#endif

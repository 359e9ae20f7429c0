#if Console
import HTTPTypes

/// Responses the console builds: JSON with no caching, and the embedded assets.
enum ConsoleResponses {
    /// `body` as `application/json`, never cached.
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> ConsoleResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return ConsoleResponse(status: status, headers: headers, body: .bytes(Array(body.utf8)))
    }

    /// An embedded asset with its media type.
    static func asset(_ body: String, contentType: String) -> ConsoleResponse {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        return ConsoleResponse(status: .ok, headers: headers, body: .bytes(Array(body.utf8)))
    }
}
#endif

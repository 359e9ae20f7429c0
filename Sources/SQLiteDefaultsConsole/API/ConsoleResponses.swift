#if Console
import HTTPTypes
import Hummingbird

/// Responses the console builds: JSON with no caching, and the embedded assets.
enum ConsoleResponses {
    /// `body` as `application/json`, never cached.
    static func json(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }

    /// An embedded asset with its media type.
    static func asset(_ body: String, contentType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.cacheControl] = "no-cache"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
#endif

#if Vapor
import HTTPTypes
import SQLiteDefaultsConsole
import Vapor

extension ConsoleRequest {
    /// A Vapor request as the console reads it on `route`: the path and query as sent
    /// (percent-encoded, as Vapor routes on them), the key's segment as sent, the socket's
    /// other end (never `X-Forwarded-For`: the owner-only rule is about the connection).
    init(vapor request: Request, route: ConsoleRoute) {
        var fields = HTTPFields()
        for (name, value) in request.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        let remote = request.remoteAddress.flatMap { address in
            address.ipAddress.flatMap { ip in address.port.map { Endpoint(ip: ip, port: $0) } }
        }
        // The key's segment is read from the path as sent: RoutingKit's parameter value is
        // already percent-decoded, and the console decodes it itself (a key may hold `%`).
        let path = request.url.path
        var keyParameter: String?
        if let position = route.segments.firstIndex(of: ":" + ConsoleRoute.keyParameter) {
            let segments = path.split(separator: "/", omittingEmptySubsequences: true)
            let index = segments.count - (route.segments.count - position)
            keyParameter = segments.indices.contains(index) ? String(segments[index]) : nil
        }
        self.init(
            method: HTTPRequest.Method(request.method.rawValue) ?? .get,
            path: path, query: request.url.query, headers: fields, authority: nil,
            keyParameter: keyParameter, remote: remote, logger: request.logger,
            collectBody: { limit in
                do {
                    guard let buffer = try await request.body.collect(max: limit).get() else { return [] }
                    return Array(buffer: buffer)
                } catch let abort as any AbortError where abort.status == .payloadTooLarge {
                    throw BodyTooLarge()
                }
            })
    }
}

extension ConsoleResponse {
    /// The console's answer as a Vapor response; a streamed body is written as it is made.
    var vapor: Response {
        var headers = HTTPHeaders()
        for field in self.headers { headers.add(name: field.name.rawName, value: field.value) }
        let status = HTTPResponseStatus(statusCode: Int(self.status.code), reasonPhrase: self.status.reasonPhrase)
        switch body {
        case .bytes(let bytes):
            return Response(status: status, headers: headers, body: .init(buffer: ByteBuffer(bytes: bytes)))
        case .stream(let produce):
            return Response(status: status, headers: headers, body: .init(asyncStream: { writer in
                do {
                    try await produce { text in try await writer.write(.buffer(ByteBuffer(string: text))) }
                    try await writer.write(.end)
                } catch {
                    try? await writer.write(.error(error))
                }
            }))
        }
    }
}
#endif

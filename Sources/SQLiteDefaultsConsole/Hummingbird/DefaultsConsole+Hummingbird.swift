#if Console
import HTTPTypes
import Hummingbird

/// The Hummingbird adapter: the console's routes (``ConsoleRoute``) registered on a router,
/// each turning Hummingbird's request into a ``ConsoleRequest`` and the console's answer back.
extension DefaultsConsole {
    /// Adds the console's routes, with its security rules in front of them, to `router`
    /// (a `Router` or a `RouterGroup`) under `path`.
    ///
    /// ```swift
    /// console.addRoutes(to: router, atPath: "admin/prefs")
    /// ```
    ///
    /// Never throws: requests the console refuses get 4xx responses (see ``Configuration``).
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>, atPath path: String = "") {
        let group = router.group(RouterPath(path))
        for route in ConsoleRoute.allCases {
            let routePath = RouterPath(route.segments.joined(separator: "/"))
            group.on(routePath, method: route.method) { request, context in
                await self.respond(to: Self.consoleRequest(request, context: context), route: route).hummingbird
            }
        }
    }

    /// `request` as the console reads it.
    static func consoleRequest(_ request: Request, context: some RequestContext) -> ConsoleRequest {
        let remote = (context as? any RemoteAddressRequestContext)?.remoteAddress
        let endpoint = remote.flatMap { address in
            address.ipAddress.flatMap { ip in address.port.map { ConsoleRequest.Endpoint(ip: ip, port: $0) } }
        }
        let body = request.body
        return ConsoleRequest(
            method: request.method, path: request.uri.path, query: request.uri.query, headers: request.headers,
            authority: request.head.authority, keyParameter: context.parameters.get(ConsoleRoute.keyParameter),
            remote: endpoint, logger: context.logger,
            collectBody: { limit in
                do {
                    return Array(buffer: try await body.collect(upTo: limit))
                } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
                    throw ConsoleRequest.BodyTooLarge()
                }
            })
    }
}

extension ConsoleResponse {
    /// The response as Hummingbird sends it.
    var hummingbird: Response {
        switch body {
        case .bytes(let bytes):
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        case .stream(let produce):
            return Response(status: status, headers: headers, body: ResponseBody { writer in
                try await produce { text in try await writer.write(ByteBuffer(string: text)) }
                try await writer.finish(nil)
            })
        }
    }
}
#endif

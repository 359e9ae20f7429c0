#if Console
import Foundation
import HTTPTypes
import PrefsFormats
import ServiceLifecycle
import SQLiteDefaults

extension DefaultsConsole {
    /// The page; a path without its trailing slash is redirected to it, so the page's
    /// relative links (`console.js`, `api/keys`) resolve below the mount point.
    func page(_ request: ConsoleRequest) -> ConsoleResponse {
        let path = request.path
        guard path.hasSuffix("/") else {
            return ConsoleResponse(status: .movedPermanently, headers: [.location: path + "/"])
        }
        return ConsoleResponses.asset(ConsoleAssets.page, contentType: "text/html; charset=utf-8")
    }

    /// `GET api/session`: who the request is, as ``ConsoleJSON/session(_:)`` writes it.
    func session() -> ConsoleResponse {
        var response = ConsoleResponses.json(ConsoleJSON.session(ConsolePrincipal.current ?? .owner))
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `GET api/openapi.json`: the OpenAPI document of the console's routes (``ConsoleOpenAPI``),
    /// its `servers` the mount point this request came through. Behind the same rules as every
    /// route, as the page's assets are: it holds no secret, but a console that takes tokens
    /// answers nothing to a request without one.
    func openAPIDocument(_ request: ConsoleRequest) -> ConsoleResponse {
        let suffix = ConsoleRoute.openAPI.segments.joined(separator: "/")
        var mountPath = request.path.hasSuffix(suffix) ? String(request.path.dropLast(suffix.count)) : ""
        while mountPath.hasSuffix("/") { mountPath.removeLast() }
        let host = (request.headers[ConsoleSecurity.hostField] ?? request.authority)?.lowercased()
        let context = ConsoleOpenAPI.Context(mountPath: mountPath, tokenRequired: authenticator.isRequired,
                                             cookieName: ConsoleSecurity.cookieName(host: host))
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-cache"
        return ConsoleResponse(status: .ok, headers: headers, body: .bytes(ConsoleOpenAPI.document(context)))
    }

    /// `GET api/events`: the head and a first comment at once, then one event per committed
    /// change (`id:` its history sequence; after `Last-Event-ID: SEQ`, first every change after
    /// SEQ, or one `event: compacted` when the history no longer keeps them), `event: declarations` when a key is declared or undeclared, keep-alive
    /// comments while idle, until the client goes, its queue overflows, the server shuts down,
    /// or the token it was opened with is removed (looked at each second).
    func events(_ request: ConsoleRequest) async -> ConsoleResponse {
        let stillValid = ConsoleCredential.stillValid
        // A reconnecting EventSource names the last event it received; a script may too. An id
        // that is no history sequence (`-1`, `abc`, past Int64) is refused, not read as "from
        // now on": the client believes it resumes, and would miss changes without a word.
        let lastEventID: Int64?
        switch Self.lastEventID(request.headers[HTTPField.Name("Last-Event-ID")!]) {
        case .success(let id): lastEventID = id
        case .failure(let refusal): return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        }
        // One token holds at most so many streams: they stay open for hours, and the server's
        // connections are bounded, so one token holder must not be able to take them all.
        let token = ConsolePrincipal.current?.name
        guard let (queue, feed) = await hub.subscribe(after: lastEventID, token: token) else {
            var refusal = ConsoleResponses.json(ConsoleJSON.error(
                "token \"\(token ?? "")\" already has \(hub.perTokenLimit) event streams open, the most one token may; close one and try again"),
                status: .tooManyRequests)
            refusal.headers[HTTPField.Name("Retry-After")!] = "15"
            return refusal
        }
        let hub = self.hub
        let keepAlive = configuration.keepAliveInterval
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        let body = ConsoleResponse.Body.stream { write in
            defer {
                feed.cancel()
                hub.remove(queue)
            }
            // A ticker pushes keep-alives through the same queue, so one writer writes.
            let ticker = Task {
                while !Task.isCancelled {
                    try? await Task.sleep(for: keepAlive)
                    queue.push(": keep-alive\n\n")
                }
            }
            defer { ticker.cancel() }
            // The token the stream was opened with, looked at each second: removed, the stream
            // ends. (`event: declarations` comes from the hub's one shared look.)
            let validity = Task {
                guard let stillValid else { return }
                while !Task.isCancelled {
                    try? await Task.sleep(for: EventHub.declarationCheckInterval)
                    if !stillValid() {
                        queue.finish()
                        return
                    }
                }
            }
            defer { validity.cancel() }
            try await write("retry: 1000\n: connected\n\n")
            try await withGracefulShutdownHandler {
                loop: while true {
                    switch await queue.next() {
                    case .events(let events):
                        try await write(events.joined())
                    case .overflow:
                        try await write("event: overflow\ndata: {}\n\n")
                        break loop
                    case .finished:
                        break loop
                    }
                }
            } onGracefulShutdown: {
                queue.finish()
            }
        }
        return ConsoleResponse(status: .ok, headers: headers, body: body)
    }

    /// Store errors that are the request's fault (a value the database refuses, too large, …).
    static func isRefusal(_ error: DefaultsError) -> Bool {
        // `.constraint`: a trigger or check that refuses the value, as a declared key's does.
        // `.invalidAttribution`: a reason (or a token's name) too long for the history.
        [.invalidKey, .encodingFailed, .valueTooLarge, .typeMismatch, .declarationConflict, .invalidAttribution].contains(error.code)
            || error.sqliteResult == .constraint
    }

    /// The response `body` makes, or the one its error calls for: 400 `{"error"}` for a refused
    /// request or value (``RequestValue/Refusal``, or a ``isRefusal(_:)`` store error), 503 for
    /// any other failure of the store.
    static func responding(_ body: () throws -> ConsoleResponse) -> ConsoleResponse {
        do {
            return try body()
        } catch let refusal as RequestValue.Refusal {
            return ConsoleResponses.json(ConsoleJSON.error(refusal.message), status: .badRequest)
        } catch let error as DefaultsError where isRefusal(error) {
            return ConsoleResponses.json(ConsoleJSON.error(error.description), status: .badRequest)
        } catch {
            return storeFailure(error)
        }
    }

    /// 503 with the store's error: the file cannot be written now (busy, read-only, full, replaced).
    static func storeFailure(_ error: any Error) -> ConsoleResponse {
        let message = (error as? DefaultsError)?.description ?? "\(error)"
        return ConsoleResponses.json(ConsoleJSON.error(message), status: .serviceUnavailable)
    }
}
#endif

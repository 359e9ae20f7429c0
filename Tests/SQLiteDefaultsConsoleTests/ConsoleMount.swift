#if Console && Prefs
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing
#if Vapor
import SQLiteDefaultsConsole
import SQLiteDefaultsVapor
import Vapor
#endif

/// Where a test's console is mounted: the console's API, event-stream and security suites run
/// against each, since one console serves both.
enum ConsoleMount: String, Sendable, CustomTestStringConvertible {
    case hummingbird
    case vapor

    /// Every mount this build has (Vapor's with the Vapor trait).
    static var all: [ConsoleMount] {
        #if Vapor
        [.hummingbird, .vapor]
        #else
        [.hummingbird]
        #endif
    }

    var testDescription: String { rawValue }
}

/// A response as a test reads it, from either mount.
struct ConsoleTestResponse: Sendable {
    let status: HTTPResponse.Status
    let headers: HTTPFields
    let body: ByteBuffer
}

/// Sends requests to a mounted console: HummingbirdTesting's client for the Hummingbird mount
/// (in-process router or live), a loopback connection to a running Vapor server for the Vapor one.
struct ConsoleTestClient: Sendable {
    let send: @Sendable (String, HTTPRequest.Method, HTTPFields, ByteBuffer?) async throws -> ConsoleTestResponse
    /// The live server's port (nil for Hummingbird's in-process router).
    let port: Int?

    @discardableResult
    func execute<Return>(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil,
                         testCallback: (ConsoleTestResponse) async throws -> Return = { $0 }) async throws -> Return {
        try await testCallback(send(uri, method, headers, body))
    }
}

/// How a Hummingbird test runs (`.router` in process, `.live` on a port); a Vapor mount always
/// runs live.
enum ConsoleTestMode {
    case router, live
}

extension ConsoleFixture {
    /// Runs `body` with a client of this fixture's console, on its mount.
    func test<Value>(_ mode: ConsoleTestMode, _ body: @Sendable (ConsoleTestClient) async throws -> Value) async throws -> Value {
        switch mount {
        case .hummingbird:
            return try await app.test(mode == .router ? .router : .live) { client in
                let port = client.port
                return try await body(ConsoleTestClient(send: { uri, method, headers, requestBody in
                    let response = try await client.execute(uri: uri, method: method, headers: headers, body: requestBody)
                    return ConsoleTestResponse(status: response.status, headers: response.headers, body: response.body)
                }, port: port))
            }
        case .vapor:
            #if Vapor
            return try await runOnVapor(body)
            #else
            throw TestFailure("this build has no Vapor mount")
            #endif
        }
    }

    #if Vapor
    /// A Vapor app on a loopback port with the console mounted at the fixture's prefix.
    private func runOnVapor<Value>(_ body: @Sendable (ConsoleTestClient) async throws -> Value) async throws -> Value {
        let app = try await Vapor.Application.make(.testing)
        app.logger.logLevel = .error
        app.http.server.configuration.hostname = "127.0.0.1"
        app.http.server.configuration.port = 0
        app.http.server.configuration.shutdownTimeout = .seconds(2)
        let routes = prefix.isEmpty ? app.routes : app.grouped(prefix.split(separator: "/").map { PathComponent(stringLiteral: String($0)) })
        console.addRoutes(to: routes, principal: { _ in nil })
        do {
            try await app.server.start(address: .hostname("127.0.0.1", port: 0))
            let port = try #require(app.http.server.shared.localAddress?.port)
            // The deadline is for a server that hangs, not a measure of speed: a 5,000-entry
            // page takes a second here alone and took over 20 s beside the whole suite on CI's
            // two cores (ConsoleHistoryPagingTests failed so).
            let client = HummingbirdTesting.TestClient(host: "127.0.0.1", port: port, configuration: .init(timeout: .seconds(180)))
            client.connect()
            let value: Value
            do {
                value = try await body(ConsoleTestClient(send: { uri, method, headers, requestBody in
                    var headers = headers
                    headers[.connection] = "keep-alive"
                    // The Host a test names travels as the request's authority (one Host line).
                    let host = headers[HTTPField.Name("Host")!]
                    headers[HTTPField.Name("Host")!] = nil
                    let request = HummingbirdTesting.TestClient.Request(uri, method: method, authority: host ?? "localhost",
                                                                       headers: headers, body: requestBody)
                    let response = try await client.execute(request)
                    return ConsoleTestResponse(status: response.head.status, headers: response.head.headerFields,
                                               body: response.body ?? ByteBuffer())
                }, port: port))
            } catch {
                try? await client.shutdown()
                throw error
            }
            try await client.shutdown()
            console.closeEventStreams()
            await app.server.shutdown()
            try await app.asyncShutdown()
            return value
        } catch {
            console.closeEventStreams()
            await app.server.shutdown()
            try? await app.asyncShutdown()
            throw error
        }
    }
    #endif
}

/// A failure of the test setup itself.
struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
#endif

#if Console && Prefs
import DefaultsTestSupport
import Foundation
import HTTPTypes
import NIOCore
import SQLiteDefaults
@testable import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// `GET api/openapi.json` kept true: the document each mount serves lists exactly the route
/// table's operations, and every status a real request provokes is declared for its operation,
/// with a body of the declared shape.
@Suite("Console OpenAPI document", .offThePool)
struct ConsoleOpenAPITests {
    static let admin = ConsoleTokens.newToken(), reader = ConsoleTokens.newToken()
    static let prefix = "admin/prefs"

    /// A console with tokens (so 401 is declared) and a small body limit (so 413 is cheap),
    /// mounted under a prefix (so `servers` must name it).
    static func fixture(mount: ConsoleMount) throws -> ConsoleFixture {
        let tokens = try ConsoleTokens(entries: [
            .init(name: "carol", role: .admin, token: admin),
            .init(name: "bob", role: .read, token: reader),
        ])
        let fixture = try ConsoleFixture(mount: mount, configuration: .init(tokens: tokens, allowedHosts: ["127.0.0.1"], maximumBodySize: 256),
                                         prefix: prefix)
        try fixture.store.declare(DefaultsDeclaration(key: "api.token", type: .string, isSecret: true))
        try fixture.store.set(.text("sk-1"), for: DefaultsKey<SQLiteValue?>("api.token"))
        try fixture.store.set(.integer(45), for: DefaultsKey<SQLiteValue?>("timeout"))
        return fixture
    }

    static func headers(_ token: String? = admin, json: Bool = false, extra: HTTPFields = [:]) -> HTTPFields {
        var headers = extra
        headers[HTTPField.Name("Host")!] = "127.0.0.1:8765"
        if let token { headers[.authorization] = "Bearer " + token }
        if json { headers[.contentType] = "application/json" }
        return headers
    }

    /// The document as served at `uri`, parsed.
    static func document(_ client: ConsoleTestClient, _ uri: String, token: String? = admin) async throws -> [String: Any] {
        try await client.execute(uri: uri, method: .get, headers: headers(token)) { response in
            #expect(response.status == .ok)
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            return try #require(parsedJSON(response.body) as? [String: Any])
        }
    }

    /// The (method, path) pairs the route table serves, with `:key` written `{key}`: derived
    /// here from the segments, not from the document's builder. The page and its assets are
    /// routes too, and in the document: it describes every route.
    static var routeTable: Set<String> {
        Set(ConsoleRoute.allCases.map { route in
            route.method.rawValue.lowercased() + " /" + route.segments.map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : $0 }.joined(separator: "/")
        })
    }

    @Test("the document's operations are exactly the route table's, on each mount, with the mount point as its server", arguments: ConsoleMount.all)
    func operationsAreTheRouteTable(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.live) { client in
            // Behind the same rules as every route: no token, no document.
            try await client.execute(uri: "/\(Self.prefix)/api/openapi.json", method: .get, headers: Self.headers(nil)) {
                #expect($0.status == .unauthorized)
            }
            let document = try await Self.document(client, "/\(Self.prefix)/api/openapi.json")
            #expect(document["openapi"] as? String == "3.0.3")
            let servers = document["servers"] as? [[String: Any]]
            #expect(servers?.first?["url"] as? String == "/" + Self.prefix)
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            let served = Set(paths.flatMap { path, item in item.keys.map { "\($0) \(path)" } })
            #expect(served == Self.routeTable)
            // Every operation declares at least one success and the refusals of the rules
            // in front of every route.
            for (path, item) in paths {
                for (method, operation) in item {
                    let responses = try #require((operation as? [String: Any])?["responses"] as? [String: Any], "\(method) \(path)")
                    #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path)")
                    for status in ["401", "403", "413"] { #expect(responses[status] != nil, "\(method) \(path): \(status)") }
                }
            }
            let schemes = (document["components"] as? [String: Any])?["securitySchemes"] as? [String: [String: Any]]
            #expect(schemes?["bearer"]?["scheme"] as? String == "bearer")
            #expect(schemes?["session"]?["name"] as? String == "sqlitedefaults_console_8765")
        }
    }

    @Test("a console without a token declares no security and no 401", arguments: ConsoleMount.all)
    func noTokenNoSecurity(mount: ConsoleMount) async throws {
        let fixture = try ConsoleFixture(mount: mount)
        try await fixture.test(.live) { client in
            let document = try await Self.document(client, "/api/openapi.json", token: nil)
            #expect(document["security"] == nil)
            #expect((document["servers"] as? [[String: Any]])?.first?["url"] as? String == "/")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            for item in paths.values {
                for operation in item.values {
                    #expect(((operation as? [String: Any])?["responses"] as? [String: Any])?["401"] == nil)
                }
            }
        }
    }

    /// One request the test makes, and the route it reaches.
    struct Probe {
        let route: ConsoleRoute
        let method: HTTPRequest.Method
        let uri: String
        var headers: HTTPFields = ConsoleOpenAPITests.headers()
        var body: String?
        let expected: HTTPResponse.Status
    }

    static var probes: [Probe] {
        let base = "/" + prefix
        let write = headers(json: true)
        return [
            Probe(route: .page, method: .get, uri: base + "/", expected: .ok),
            Probe(route: .script, method: .get, uri: base + "/console.js", expected: .ok),
            Probe(route: .style, method: .get, uri: base + "/console.css", expected: .ok),
            Probe(route: .openAPI, method: .get, uri: base + "/api/openapi.json", expected: .ok),
            Probe(route: .keys, method: .get, uri: base + "/api/keys", expected: .ok),
            Probe(route: .keys, method: .get, uri: base + "/api/keys", headers: headers(nil), expected: .unauthorized),
            Probe(route: .keys, method: .get, uri: base + "/api/keys", headers: headers("sqd_wrong"), expected: .unauthorized),
            Probe(route: .keys, method: .get, uri: base + "/api/keys",
                  headers: [HTTPField.Name("Host")!: "evil.example", .authorization: "Bearer " + admin], expected: .forbidden),
            Probe(route: .session, method: .get, uri: base + "/api/session", expected: .ok),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: write, body: #"{"value": 46, "reason": "probe"}"#, expected: .ok),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: write, body: "nope", expected: .badRequest),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: headers(json: true, extra: [WritePrecondition.ifMatch: "\"999\""]),
                  body: #"{"value": 1}"#, expected: .preconditionFailed),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: headers(json: true, extra: [WritePrecondition.ifMatch: "12"]),
                  body: #"{"value": 1}"#, expected: .badRequest),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: headers(reader, json: true), body: #"{"value": 1}"#, expected: .forbidden),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: headers(), body: #"{"value": 1}"#, expected: .forbidden),
            Probe(route: .putKey, method: .put, uri: base + "/api/keys/timeout", headers: write,
                  body: #"{"value": ""# + String(repeating: "x", count: 300) + #""}"#, expected: .contentTooLarge),
            Probe(route: .putKeyByQuery, method: .put, uri: base + "/api/keys?key=new.key", headers: write, body: #"{"value": "a"}"#, expected: .ok),
            Probe(route: .putKeyByQuery, method: .put, uri: base + "/api/keys?key=a&keyHex=61", headers: write, body: #"{"value": "a"}"#, expected: .badRequest),
            Probe(route: .putKeyByQuery, method: .put, uri: base + "/api/keys?key=new.key", headers: headers(json: true, extra: [WritePrecondition.ifNoneMatch: "*"]),
                  body: #"{"value": "b"}"#, expected: .preconditionFailed),
            Probe(route: .putKeyByQuery, method: .put, uri: base + "/api/keys?keyHex=ff00", headers: write, body: #"{"value": "a"}"#, expected: .notFound),
            Probe(route: .deleteKey, method: .delete, uri: base + "/api/keys/missing", expected: .notFound),
            Probe(route: .deleteKey, method: .delete, uri: base + "/api/keys/timeout",
                  headers: headers(extra: [WritePrecondition.ifMatch: "\"999\""]), expected: .preconditionFailed),
            Probe(route: .deleteKey, method: .delete, uri: base + "/api/keys/timeout?reason=a&reason=b", expected: .badRequest),
            Probe(route: .deleteKey, method: .delete, uri: base + "/api/keys/timeout", headers: headers(reader), expected: .forbidden),
            Probe(route: .deleteKey, method: .delete, uri: base + "/api/keys/timeout?reason=probe", expected: .noContent),
            Probe(route: .deleteKeyByQuery, method: .delete, uri: base + "/api/keys?key=missing", expected: .notFound),
            Probe(route: .deleteKeyByQuery, method: .delete, uri: base + "/api/keys", expected: .badRequest),
            Probe(route: .history, method: .get, uri: base + "/api/history?key=timeout&limit=1", expected: .ok),
            Probe(route: .history, method: .get, uri: base + "/api/history?limit=-1", expected: .badRequest),
            Probe(route: .secret, method: .get, uri: base + "/api/keys/api.token/secret", expected: .ok),
            Probe(route: .secret, method: .get, uri: base + "/api/keys/timeout/secret", expected: .notFound),
            Probe(route: .secretByQuery, method: .get, uri: base + "/api/secret?key=api.token", headers: headers(reader), expected: .forbidden),
            Probe(route: .secretByQuery, method: .get, uri: base + "/api/secret", expected: .badRequest),
            Probe(route: .putKeyByQuery, method: .put, uri: base + "/api/keys?key=a.%FF", headers: write, body: #"{"value": "a"}"#, expected: .badRequest),
            Probe(route: .keys, method: .get, uri: base + "/api/keys?x=%C3", expected: .badRequest),
        ]
    }

    @Test("every status a request provokes is declared for its operation, with its media type, headers and body shape", arguments: ConsoleMount.all)
    func provokedStatusesAreDeclared(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.live) { client in
            let document = try await Self.document(client, "/\(Self.prefix)/api/openapi.json")
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            var reached = Set<String>()
            for probe in Self.probes {
                let label = "\(probe.method) \(probe.uri) → \(probe.expected.code)"
                let operation = try #require(paths[ConsoleOpenAPI.path(of: probe.route)]?[probe.method.rawValue.lowercased()] as? [String: Any], "\(label)")
                let response = try await client.execute(uri: probe.uri, method: probe.method, headers: probe.headers,
                                                        body: probe.body.map { ByteBuffer(string: $0) })
                #expect(response.status == probe.expected, "\(label): \(response.body.text)")
                reached.insert(ConsoleOpenAPI.operationID(probe.route) + " \(response.status.code)")
                let declared = (operation["responses"] as? [String: Any])?[String(response.status.code)]
                let answer = try #require(declared.flatMap { OpenAPIShape.resolve($0, in: document) as? [String: Any] }, "\(label): not declared")
                // Link and X-History-Next(-Before) come with a full page only; Set-Cookie with a 303.
                let always = Set((answer["headers"] as? [String: Any])?.keys.map { $0 } ?? []).subtracting(["Set-Cookie", "Link", "X-History-Next", "X-History-Next-Before"])
                for name in always {
                    #expect(response.headers[HTTPField.Name(name)!] != nil, "\(label): declared header \(name) missing")
                }
                guard let content = answer["content"] as? [String: Any] else {
                    #expect(response.body.readableBytes == 0, "\(label): a body, and none declared")
                    continue
                }
                let mediaType = response.headers[.contentType]?.split(separator: ";").first.map { String($0).trimmingCharacters(in: .whitespaces) }
                let declaredMedia = try #require(mediaType.flatMap { content[$0] as? [String: Any] }, "\(label): \(mediaType ?? "no type") not declared")
                if mediaType == "application/json", let schema = declaredMedia["schema"] {
                    let body = try #require(parsedJSON(response.body), "\(label): not JSON")
                    let problems = OpenAPIShape.problems(body, schema, in: document)
                    #expect(problems.isEmpty, "\(label): \(problems)")
                }
            }
            // The refusals this test is about, each reached at least once.
            for needed in ["listKeys 400", "listKeys 401", "listKeys 403", "deleteKey 404", "putKey 400", "putKey 412", "deleteKey 412", "putKey 413", "revealSecretByQuery 403"] {
                #expect(reached.contains(needed), "\(needed)")
            }
        }
    }
}

extension ConsoleOpenAPITests {
    @Test("each event of the stream has the shape the document declares, read as schemathesis 4.32 reads an event stream (event, data, id)",
          arguments: ConsoleMount.all)
    func eventsMatchTheirSchema(mount: ConsoleMount) async throws {
        let fixture = try Self.fixture(mount: mount)
        try await fixture.test(.live) { client in
            let port = try #require(client.port)
            let document = try await Self.document(client, "/\(Self.prefix)/api/openapi.json")
            let operation = (document["paths"] as? [String: Any])?["/api/events"] as? [String: Any]
            let ok = ((operation?["get"] as? [String: Any])?["responses"] as? [String: Any])?["200"] as? [String: Any]
            let schema = try #require(((ok?["content"] as? [String: Any])?["text/event-stream"] as? [String: Any])?["schema"], "\(String(describing: ok))")
            let changeSchema = try #require(((document["components"] as? [String: Any])?["schemas"] as? [String: Any])?["Event"])
            let stream = try RawHTTPConnection(port: port)
            try stream.send("GET", "/\(Self.prefix)/api/events", headers: ["Authorization": "Bearer " + Self.admin], host: "127.0.0.1:\(port)")
            #expect(try await onOwnThread { try stream.head() }.status == 200)
            try await client.execute(uri: "/\(Self.prefix)/api/keys/zz.marker", method: .put, headers: Self.headers(json: true),
                                     body: ByteBuffer(string: #"{"value": 1}"#)) { #expect($0.status == .ok) }
            // Events as schemathesis builds them: lines up to a blank one; `data` lines joined,
            // `event` "message" when unnamed; a block without data (the opening comment and
            // `retry:`) is no event.
            let events = try await onOwnThread { () -> [[String: Any]] in
                var events: [[String: Any]] = [], fields: [String: Any] = [:], data: [String] = []
                while let line = try stream.line(timeout: .seconds(60)) {
                    if line.isEmpty {
                        if !data.isEmpty {
                            fields["data"] = data.joined(separator: "\n")
                            fields["event"] = fields["event"] ?? "message"
                            events.append(fields)
                            if (fields["data"] as? String)?.contains("zz.marker") == true { break }
                        }
                        fields = [:]
                        data = []
                        continue
                    }
                    if line.hasPrefix(":") { continue }
                    let name = line.prefix { $0 != ":" }
                    var value = line.dropFirst(name.count).dropFirst()
                    if value.hasPrefix(" ") { value = value.dropFirst() }
                    switch name {
                    case "data": data.append(String(value))
                    case "event", "id": fields[String(name)] = String(value)
                    case "retry": fields["retry"] = Int(value)
                    default: break
                    }
                }
                return events
            }
            let marker = try #require(events.last, "no event arrived")
            #expect((marker["data"] as? String)?.contains("zz.marker") == true)
            for event in events {
                #expect(OpenAPIShape.problems(event, schema, in: document).isEmpty, "\(event): \(OpenAPIShape.problems(event, schema, in: document))")
            }
            let change = try #require(parsedJSON(ByteBuffer(string: marker["data"] as? String ?? "")))
            #expect(OpenAPIShape.problems(change, changeSchema, in: document).isEmpty, "\(change)")
            #expect(marker["event"] as? String == "message" && marker["id"] is String)
        }
    }
}

/// A small structural check of a JSON value against an OpenAPI 3.0 schema: `$ref`, `allOf`,
/// `nullable`, `type`, `required`, `properties`, `additionalProperties: false`, `items` and
/// `enum` — what the console's document uses.
enum OpenAPIShape {
    /// `node` with its `$ref` (if any) followed, in `document`.
    static func resolve(_ node: Any, in document: [String: Any]) -> Any? {
        guard let reference = (node as? [String: Any])?["$ref"] as? String else { return node }
        var target: Any? = document
        for part in reference.dropFirst(2).split(separator: "/") { target = (target as? [String: Any])?[String(part)] }
        return target.flatMap { resolve($0, in: document) }
    }

    /// What does not fit (empty when it does), each with its JSON path.
    static func problems(_ value: Any, _ schemaNode: Any, in document: [String: Any], at path: String = "$") -> [String] {
        guard let schema = resolve(schemaNode, in: document) as? [String: Any] else { return ["\(path): unresolvable schema"] }
        if value is NSNull { return schema["nullable"] as? Bool == true || schema["type"] == nil && schema["allOf"] == nil ? [] : ["\(path): null"] }
        var found: [String] = []
        for part in schema["allOf"] as? [Any] ?? [] { found += problems(value, part, in: document, at: path) }
        if let allowed = schema["enum"] as? [String], !allowed.contains(value as? String ?? "\u{0}") { found.append("\(path): not one of \(allowed)") }
        switch schema["type"] as? String {
        case "object":
            guard let object = value as? [String: Any] else { return found + ["\(path): not an object"] }
            let properties = schema["properties"] as? [String: Any] ?? [:]
            for name in schema["required"] as? [String] ?? [] where object[name] == nil { found.append("\(path).\(name): missing") }
            for (name, member) in object {
                if let property = properties[name] {
                    found += problems(member, property, in: document, at: "\(path).\(name)")
                } else if schema["additionalProperties"] as? Bool == false {
                    found.append("\(path).\(name): not declared")
                }
            }
        case "array":
            guard let array = value as? [Any] else { return found + ["\(path): not an array"] }
            if let items = schema["items"] {
                for (index, item) in array.enumerated() { found += problems(item, items, in: document, at: "\(path)[\(index)]") }
            }
        case "string":
            if !(value is String) { found.append("\(path): not a string") }
        case "boolean":
            if !isBool(value) { found.append("\(path): not a boolean") }
        case "integer":
            if isBool(value) || (value as? NSNumber).map({ $0.doubleValue.rounded() == $0.doubleValue }) != true { found.append("\(path): not an integer") }
        case "number":
            if isBool(value) || !(value is NSNumber) { found.append("\(path): not a number") }
        default:
            break
        }
        return found
    }

    /// Whether JSONSerialization read `true`/`false`: on Linux any NSNumber casts to Bool, and
    /// only the boolean ones are of its boolean class.
    private static func isBool(_ value: Any) -> Bool {
        type(of: value) == Bool.self || String(describing: type(of: value)) == "__NSCFBoolean"
    }
}
#endif

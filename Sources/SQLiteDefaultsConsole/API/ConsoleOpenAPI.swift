#if Console
import Foundation

/// The console's API as an OpenAPI 3.0.3 document, served at `GET api/openapi.json`: every
/// route of ``ConsoleRoute`` (the page and its assets too, so the document is the whole
/// route table), each with the statuses it really answers, its parameters, headers and
/// bodies, the error body, and the credentials the console accepts.
///
/// Built from data, per request: the operations come from an exhaustive `switch` over
/// ``ConsoleRoute`` (a new route does not compile until it is described), and three facts of
/// the request's console are filled in — where it is mounted (the document's `servers`, so a
/// client resolves `/api/keys` below the mount point), whether it takes tokens (its security
/// schemes and 401s), and its session cookie's name (which names the port). A test loads the
/// document from both mounts and compares it with the route table and with real answers.
///
/// 3.0.3 rather than 3.1: what schemathesis and most generators read best; nullable values say
/// `nullable: true`.
enum ConsoleOpenAPI {
    /// The OpenAPI version the document declares.
    static let version = "3.0.3"

    /// What varies between consoles.
    struct Context {
        /// The mount point's path, as the request sent it, with no trailing slash: `""` at the
        /// root, `/admin/prefs` under a prefix.
        var mountPath: String
        /// Whether requests need a token (``ConsoleAuthenticator/isRequired``).
        var tokenRequired: Bool
        /// The session cookie's name for the request's host.
        var cookieName: String
    }

    /// The document's JSON (keys sorted, so equal consoles serve equal bytes).
    static func document(_ context: Context) -> [UInt8] {
        var paths: [String: [String: Any]] = [:]
        for route in ConsoleRoute.allCases {
            paths[path(of: route), default: [:]][route.method.rawValue.lowercased()] = operation(route, context)
        }
        var components: [String: Any] = ["schemas": schemas, "responses": sharedResponses]
        var document: [String: Any] = [
            "openapi": version,
            "info": [
                "title": "SQLiteDefaults console",
                "version": "1",
                "description": """
                    The JSON API, event stream and page of a SQLiteDefaults console (`prefs serve`, or the \
                    console mounted in a Hummingbird or Vapor app). Values are in the format `prefs export` \
                    writes: an INTEGER is `42`, a REAL `2.0`, TEXT a string, a BLOB `{"$data": "base64"}`. \
                    Every refusal is `{"error": "…"}` (schema Error). Every response carries a \
                    Content-Security-Policy, `X-Content-Type-Options: nosniff`, no referrer. \
                    Requests whose Host is not served, from another user's socket on a loopback console \
                    without a token, or writes with a foreign Origin or without `Content-Type: application/json` \
                    are 403.
                    """,
            ],
            // Relative to the host the document was fetched from: the mount point.
            "servers": [["url": context.mountPath.isEmpty ? "/" : context.mountPath,
                         "description": "where this console is mounted"]],
            "paths": paths,
        ]
        if context.tokenRequired {
            components["securitySchemes"] = [
                "bearer": ["type": "http", "scheme": "bearer",
                           "description": "A token of the console's tokens (`prefs token add`, `--token-file`): its name, role and key prefixes decide what the request may do."],
                "session": ["type": "apiKey", "in": "cookie", "name": context.cookieName,
                            "description": "The session that opening the page once with `?token=TOKEN` opens (a random identifier, never the token)."],
            ]
            document["security"] = [["bearer": [String]()], ["session": [String]()]]
        }
        document["components"] = components
        let data = (try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data)
    }

    /// A route's path in the document: its segments below the mount point, `:key` as `{key}`.
    static func path(of route: ConsoleRoute) -> String {
        "/" + route.segments.map { $0.hasPrefix(":") ? "{" + $0.dropFirst() + "}" : $0 }.joined(separator: "/")
    }

    // MARK: Operations

    /// `route`'s operation: its parameters, body and every status it answers (the security
    /// rules' refusals included).
    private static func operation(_ route: ConsoleRoute, _ context: Context) -> [String: Any] {
        var parameters: [[String: Any]] = []
        var responses: [String: Any] = [:]
        var requestBody: [String: Any]?
        let summary: String
        // Every route: the security rules' refusals. 413 too: a body over the limit is refused
        // by its Content-Length whatever the method; 400 for a query that does not decode.
        responses["400"] = ref(response: "BadRequest")
        responses["403"] = ref(response: "Forbidden")
        responses["413"] = ref(response: "TooLarge")
        if context.tokenRequired { responses["401"] = ref(response: "Unauthorized") }
        switch route {
        case .page:
            summary = "The page (HTML); a path without its trailing slash is redirected to it (301)"
            responses["200"] = content("text/html", ["type": "string"], "the page")
            responses["301"] = redirect("the same path with a trailing slash")
            if context.tokenRequired {
                parameters.append(query("token", ["type": "string"], "A token: opens a session (a cookie) and redirects to the page without the query (303); a wrong one is 401."))
                responses["303"] = ["description": "a session opened: `Set-Cookie` and `Location` (the page)",
                                    "headers": ["Set-Cookie": header("the session cookie (HttpOnly, SameSite=Strict)"),
                                                "Location": header("the page's path")]]
            }
        case .script:
            summary = "The page's script"
            responses["200"] = content("text/javascript", ["type": "string"], "the script")
        case .style:
            summary = "The page's style"
            responses["200"] = content("text/css", ["type": "string"], "the style sheet")
        case .keys:
            summary = "A page of the keys, stored or declared, in key order (by bytes)"
            parameters.append(query("prefix", ["type": "string"], "Only keys that start with this; every key without it."))
            parameters.append(query("contains", ["type": "string"], "Only keys that contain this (ASCII letters in either case, every other character exactly)."))
            parameters.append(query("limit", ["type": "integer", "minimum": 1, "maximum": Int64.max, "format": "int64"],
                                    "At most this many keys (500 unless given; a page holds at most 5,000, a larger limit reads one full page)."))
            parameters.append(query("after", ["type": "string"], "Only keys after this one (the previous page's `next`); it need not be stored."))
            parameters.append(query("afterHex", ["type": "string", "pattern": "^([0-9A-Fa-f]{2})+$"],
                                    "As `after`, the key given by its bytes in hex (the previous page's `nextHex`); not with `after`."))
            responses["200"] = json(ref(schema: "KeyList"), "the keys")
            responses["400"] = ref(response: "BadRequest")
            responses["503"] = ref(response: "Unavailable")
        case .session:
            summary = "Who the request is: the token's name, role and key prefixes"
            responses["200"] = json(ref(schema: "Session"), "the request's principal")
        case .putKey, .putKeyByQuery:
            summary = route == .putKey ? "Write a key named in the path (percent-encoded)"
                : "Write a key named in the query (`key`, as it is, or `keyHex`, its bytes)"
            parameters += route == .putKey ? [keyPath] : keyQuery
            parameters += preconditions
            requestBody = ["required": true, "content": ["application/json": ["schema": ref(schema: "Write")]]]
            responses["200"] = ["description": "written: the key's entry (a secret masked)",
                                "headers": ["ETag": header("`\"SEQ\"`: the key's new version")],
                                "content": ["application/json": ["schema": ref(schema: "Entry")]]]
            addWriteRefusals(to: &responses, notFound: "a key given as bytes (not UTF-8) that is no longer stored: such a key is changed, never created")
        case .deleteKey, .deleteKeyByQuery:
            summary = route == .deleteKey ? "Remove a key named in the path (back to its default)"
                : "Remove a key named in the query (back to its default)"
            parameters += route == .deleteKey ? [keyPath] : keyQuery
            parameters.append(query("reason", ["type": "string"], "Why, recorded in the history (at most 16 KiB of UTF-8)."))
            parameters += preconditions
            responses["204"] = ["description": "removed"]
            addWriteRefusals(to: &responses, notFound: "no row was stored: nothing changed")
        case .history:
            summary = "Changes, newest first (`prefs history --json`'s objects)"
            parameters.append(["name": "key", "in": "query", "required": false, "style": "form", "explode": true,
                               "schema": ["type": "array", "items": ["type": "string", "minLength": 1]],
                               "description": "The keys (may repeat); every key's changes without it."])
            // The maxima are the parser's (a 64-bit whole number); past them, 400.
            parameters.append(query("limit", ["type": "integer", "minimum": 0, "maximum": Int64.max, "format": "int64"],
                                    "At most this many (500 unless given; a page holds at most 5,000, a larger limit reads one full page)."))
            parameters.append(query("after", ["type": "integer", "minimum": 1, "maximum": Int64.max, "format": "int64"],
                                    "Only the changes after this one, newest first: older than this sequence (the next page's cursor). Not with `before`."))
            parameters.append(query("before", ["type": "integer", "minimum": 1, "maximum": Int64.max, "format": "int64"],
                                    "The same cursor as `after`, under its earlier name. Not with `after`."))
            responses["200"] = ["description": "the changes; a full page names the next one's cursor",
                                "headers": ["X-History-Next": header("the next page's `after`", schema: ["type": "integer"]),
                                            "X-History-Next-Before": header("the same number, for earlier clients", schema: ["type": "integer"]),
                                            "Link": header("`<…&after=SEQ>; rel=\"next\"`")],
                                "content": ["application/json": ["schema": ["type": "array", "items": ref(schema: "HistoryEntry")]]]]
            responses["400"] = ref(response: "BadRequest")
            responses["503"] = ref(response: "Unavailable")
        case .secret, .secretByQuery:
            summary = "A secret key's value, for an admin (each reveal is recorded)"
            parameters += route == .secret ? [keyPath] : keyQuery
            responses["200"] = ["description": "the value",
                                "headers": ["ETag": header("`\"SEQ\"`: the key's version")],
                                "content": ["application/json": ["schema": ref(schema: "SecretValue")]]]
            responses["400"] = ref(response: "BadRequest")
            responses["404"] = ["description": "the key is not secret (its value is in `api/keys`)",
                                "content": ["application/json": ["schema": ref(schema: "Error")]]]
            responses["503"] = ref(response: "Unavailable")
        case .events:
            summary = "Server-sent events: one per committed change (`id:` its history sequence), until the client goes"
            parameters.append(["name": "Last-Event-ID", "in": "header", "required": false,
                               "schema": ["type": "string", "pattern": "^[0-9]+$"],
                               "description": "Resume after this sequence: every change after it first, or one `event: compacted`."])
            responses["400"] = ref(response: "BadRequest")
            responses["429"] = ["description": "the token already holds as many event streams as one token may (32 by default); nothing opened",
                                "headers": ["Retry-After": header("seconds to wait before trying again")],
                                "content": ["application/json": ["schema": ref(schema: "Error")]]]
            // OpenAPI 3.0 has no schema for a stream: before 3.2's `itemSchema`, a reader such
            // as schemathesis (4.32) takes an event stream's `schema` to describe each event,
            // as it parses one: `data` (its lines joined), `event` (`message` when unnamed),
            // `id` and `retry` when sent.
            responses["200"] = content("text/event-stream", ref(schema: "ServerSentEvent"),
                                       "a stream of events, each described by ServerSentEvent: a change (`message`, its `data` an Event object as JSON), or `compacted`, `declarations`, `overflow`")
        case .openAPI:
            summary = "This document"
            responses["200"] = json(["type": "object"], "the OpenAPI document")
        }
        var operation: [String: Any] = ["operationId": operationID(route), "summary": summary, "responses": responses]
        if !parameters.isEmpty { operation["parameters"] = parameters }
        if let requestBody { operation["requestBody"] = requestBody }
        return operation
    }

    /// The refusals `PUT` and `DELETE` share.
    private static func addWriteRefusals(to responses: inout [String: Any], notFound: String) {
        responses["400"] = ref(response: "BadRequest")
        responses["404"] = ["description": notFound, "content": ["application/json": ["schema": ref(schema: "Error")]]]
        responses["412"] = ["description": "the If-Match or If-None-Match condition does not hold: the key as it is now; nothing written",
                            "headers": ["ETag": header("`\"SEQ\"`: the key's current version")],
                            "content": ["application/json": ["schema": ref(schema: "Conflict")]]]
        responses["503"] = ref(response: "Unavailable")
    }

    /// A stable `operationId` per route.
    static func operationID(_ route: ConsoleRoute) -> String {
        switch route {
        case .page: "page"
        case .script: "script"
        case .style: "style"
        case .keys: "listKeys"
        case .session: "session"
        case .putKey: "putKey"
        case .putKeyByQuery: "putKeyByQuery"
        case .deleteKey: "deleteKey"
        case .deleteKeyByQuery: "deleteKeyByQuery"
        case .history: "history"
        case .secret: "revealSecret"
        case .secretByQuery: "revealSecretByQuery"
        case .events: "events"
        case .openAPI: "openAPI"
        }
    }

    private static var keyPath: [String: Any] {
        [
            "name": "key", "in": "path", "required": true, "schema": ["type": "string", "minLength": 1],
            "description": "The key, percent-encoded; a key that is not UTF-8 by its escaped address (`\\x{FF}key`).",
        ]
    }

    private static var keyQuery: [[String: Any]] {
        [
            query("key", ["type": "string", "minLength": 1], "The key, taken as it is. Give `key` or `keyHex`, once."),
            query("keyHex", ["type": "string", "pattern": "^([0-9A-Fa-f]{2})+$"], "The key's bytes, two hex digits each (a key that is not UTF-8)."),
        ]
    }

    private static var preconditions: [[String: Any]] {
        [
            // The patterns are what WritePrecondition accepts; anything else is 400.
            ["name": "If-Match", "in": "header", "required": false,
             "schema": ["type": "string", "pattern": #"^[ \t]*(\*|(W/)?"[0-9]{1,18}")[ \t]*$"#],
             "description": "`\"SEQ\"` (or `W/\"SEQ\"`): write only at this version; `*`: only if stored. Malformed: 400. Not with If-None-Match."],
            ["name": "If-None-Match", "in": "header", "required": false, "schema": ["type": "string", "pattern": #"^[ \t]*\*[ \t]*$"#],
             "description": "`*`: write only if not stored. Anything else: 400."],
        ]
    }

    // MARK: Building blocks

    static func ref(schema name: String) -> [String: Any] { ["$ref": "#/components/schemas/" + name] }
    static func ref(response name: String) -> [String: Any] { ["$ref": "#/components/responses/" + name] }

    static func query(_ name: String, _ schema: [String: Any], _ description: String) -> [String: Any] {
        ["name": name, "in": "query", "required": false, "schema": schema, "description": description]
    }

    private static func header(_ description: String, schema: [String: Any] = ["type": "string"]) -> [String: Any] {
        ["description": description, "schema": schema]
    }

    private static func content(_ mediaType: String, _ schema: [String: Any], _ description: String) -> [String: Any] {
        ["description": description, "content": [mediaType: ["schema": schema]]]
    }

    private static func json(_ schema: [String: Any], _ description: String) -> [String: Any] {
        content("application/json", schema, description)
    }

    private static func redirect(_ description: String) -> [String: Any] {
        ["description": description, "headers": ["Location": header("where to")]]
    }

    private static func error(_ description: String) -> [String: Any] {
        json(ref(schema: "Error"), description)
    }

    /// The refusals every route may answer, by name.
    private static var sharedResponses: [String: Any] {
        [
            "BadRequest": error("the request is refused (a value, reason, key, header or query that does not fit); nothing written"),
            "Unauthorized": error("no token, a wrong one, or a session whose token was removed"),
            "Forbidden": error("the host is not served, the connection is another user's, the token's role or prefixes do not allow it, a write from another origin or without Content-Type: application/json, or the tokens file cannot be used now"),
            "TooLarge": error("the body is over the console's limit (1 MiB by default)"),
            "Unavailable": error("the store cannot be read or written now (busy, read-only, full, replaced)"),
        ]
    }
}
#endif

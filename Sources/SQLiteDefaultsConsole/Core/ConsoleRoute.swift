#if Console
import HTTPTypes

/// The console's routes, relative to where it is mounted: one table that every adapter
/// registers with its router, so both serve the same paths.
package enum ConsoleRoute: Sendable, CaseIterable {
    case page, script, style, keys, session, putKey, putKeyByQuery, deleteKey, deleteKeyByQuery
    case history, secretByQuery, secret, events
    /// `GET api/openapi.json`: the OpenAPI document of every route of this table
    /// (``ConsoleOpenAPI``).
    case openAPI

    /// The method a route answers.
    package var method: HTTPRequest.Method {
        switch self {
        case .putKey, .putKeyByQuery: .put
        case .deleteKey, .deleteKeyByQuery: .delete
        default: .get
        }
    }

    /// Its path segments below the mount point; `:key` is the key's segment (percent-encoded).
    package var segments: [String] {
        switch self {
        case .page: []
        case .script: ["console.js"]
        case .style: ["console.css"]
        case .keys, .putKeyByQuery, .deleteKeyByQuery: ["api", "keys"]
        case .session: ["api", "session"]
        case .putKey, .deleteKey: ["api", "keys", ":key"]
        case .history: ["api", "history"]
        case .secretByQuery: ["api", "secret"]
        case .secret: ["api", "keys", ":key", "secret"]
        case .events: ["api", "events"]
        case .openAPI: ["api", "openapi.json"]
        }
    }

    /// The name of the key's parameter in ``segments``.
    package static let keyParameter = "key"
}
#endif

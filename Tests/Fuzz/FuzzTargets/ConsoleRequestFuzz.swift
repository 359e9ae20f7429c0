#if Console
import Foundation
import HTTPTypes
import Logging
import SQLiteDefaults
import SQLiteDefaultsConsole
import Synchronization

/// The console's request handling on any request: the route, the `{key}` segment, the query,
/// the headers and the body all come from the input (``ConsoleRequestFuzz/Request``), and the
/// request goes through ``DefaultsConsole/respond(to:route:)`` — the security rules, then the
/// route — exactly as both adapters call it. Promises checked:
///
/// - no answer is a 5xx: bad input is the client's error (4xx), whatever it holds;
/// - every `application/json` body is JSON;
/// - nothing is written outside the key the request names (its `{key}` segment, or `key=` /
///   `keyHex=` in its query), and nothing at all unless the answer is a success.
///
/// The console runs with three tokens (an admin, an editor of `feature.`, a reader) over a
/// store with plain, declared and secret keys; the input names a token as `$ADMIN`, `$EDITOR`
/// or `$VIEWER` anywhere in a header.
package final class ConsoleRequestFuzz: Sendable {
    package static let shared: Result<ConsoleRequestFuzz, FuzzFailure> = Result { () throws(FuzzFailure) in try ConsoleRequestFuzz() }

    /// The tokens' stand-ins in an input and their values.
    static let tokens = ["$ADMIN": "fuzz-admin-token", "$EDITOR": "fuzz-editor-token", "$VIEWER": "fuzz-viewer-token"]

    /// `FUZZ_VERBOSE=1`: print each request and its answer (for writing seeds).
    private static let verbose = ProcessInfo.processInfo.environment["FUZZ_VERBOSE"] == "1"

    private let store: DefaultsStore
    private let console: DefaultsConsole
    private let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })

    private init() throws(FuzzFailure) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-fuzz-\(getpid())-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            store = try DefaultsStore(path: folder + "/console.sqlite")
            try store.declare(DefaultsDeclaration(key: "timeout", type: .int, defaultValue: .integer(30), summary: "seconds"))
            try store.declare(DefaultsDeclaration(key: "feature.mode", type: .string, allowedValues: ["on", "off"]))
            try store.declare(DefaultsDeclaration(key: "api.token", type: .string, isSecret: true))
            try store.declare(DefaultsDeclaration(key: "feature.layout", type: .json))
            try store.set(Optional(SQLiteValue.integer(30)), for: DefaultsKey<SQLiteValue?>("timeout"))
            try store.set(Optional(SQLiteValue.text("on")), for: DefaultsKey<SQLiteValue?>("feature.mode"))
            try store.set(Optional(SQLiteValue.text("s3cret")), for: DefaultsKey<SQLiteValue?>("api.token"))
            try store.set(Optional(SQLiteValue.text("plain")), for: DefaultsKey<SQLiteValue?>("feature.name"))
            try store.set(Optional(SQLiteValue.blob(Data([0, 1, 2]))), for: DefaultsKey<SQLiteValue?>("blob"))
            let tokens = try ConsoleTokens(entries: [
                .init(name: "admin", role: .admin, token: Self.tokens["$ADMIN"]!),
                .init(name: "editor", role: .write, prefixes: ["feature."], token: Self.tokens["$EDITOR"]!),
                .init(name: "viewer", role: .read, token: Self.tokens["$VIEWER"]!),
            ])
            console = DefaultsConsole(store: store, configuration: .init(tokens: tokens, maximumBodySize: 64 * 1024))
        } catch {
            throw FuzzFailure("cannot set up the console in \(folder): \(error)")
        }
    }

    /// The check on libFuzzer's thread (or a replay's main thread): waits for the answer.
    /// Never call it from a task: it blocks its thread until the console, which runs on the
    /// cooperative pool, has answered (tests use ``checkInTask(_:)``).
    /// - Throws: ``FuzzFailure`` on a broken promise.
    package func check(_ bytes: [UInt8]) throws(FuzzFailure) {
        let input = Request(bytes)
        let before = try entries()
        try judge(input, respondBlocking(to: input), before: before)
    }

    /// The same check from a task, awaiting the answer (no thread blocked).
    /// - Throws: ``FuzzFailure`` on a broken promise.
    package func checkInTask(_ bytes: [UInt8]) async throws(FuzzFailure) {
        let input = Request(bytes)
        let before = try entries()
        try judge(input, await respond(to: input), before: before)
    }

    private func entries() throws(FuzzFailure) -> [DefaultsEntry] {
        do {
            return try store.entries()
        } catch {
            throw FuzzFailure("cannot read the store: \(error)")
        }
    }

    private func judge(_ input: Request, _ answer: Answer, before: [DefaultsEntry]) throws(FuzzFailure) {
        if Self.verbose { print("\(input) → \(answer.status) \(String(decoding: answer.body.prefix(160), as: UTF8.self))") }
        if let failure = answer.failure { throw FuzzFailure("\(input): \(failure)") }
        guard answer.status < 500 else {
            throw FuzzFailure("\(input) was answered \(answer.status): \(String(decoding: answer.body.prefix(500), as: UTF8.self))")
        }
        if answer.isJSON, (try? JSONSerialization.jsonObject(with: Data(answer.body), options: .fragmentsAllowed)) == nil {
            throw FuzzFailure("\(input) was answered \(answer.status) with a body that is not JSON: \(String(decoding: answer.body.prefix(500), as: UTF8.self))")
        }
        let changed = Self.changedKeys(before, try entries())
        guard !changed.isEmpty else { return }
        defer { restore(before, changed) }
        guard (200..<300).contains(answer.status) else {
            throw FuzzFailure("\(input) was refused (\(answer.status)) but changed \(changed.map(\.name).sorted())")
        }
        let named = Set(input.namedKeys.map(HashedKey.init))
        guard changed.isSubset(of: named) else {
            throw FuzzFailure("\(input) changed \(changed.subtracting(named).map(\.name).sorted()), which it does not name (it names \(input.namedKeys.sorted()))")
        }
    }

    /// What the console answered, its body read (an event stream only to its first write).
    private struct Answer: Sendable {
        var status = 0
        var isJSON = false
        var body: [UInt8] = []
        var failure: String?
    }

    /// Thrown into an event stream to end it after its first write.
    private struct EnoughRead: Error {}

    private func respond(to input: Request) async -> Answer {
        let request = input.consoleRequest(logger: logger)
        let route = input.route
        var answer = Answer()
        let response = await console.respond(to: request, route: route)
        answer.status = response.status.code
        answer.isJSON = response.headers[.contentType]?.hasPrefix("application/json") == true
        switch response.body {
        case .bytes(let bytes):
            answer.body = bytes
        case .stream(let produce):
            var collected: [UInt8] = []
            do {
                try await produce { text in
                    collected += Array(text.utf8)
                    if route == .events || collected.count > 1 << 20 { throw EnoughRead() }
                }
            } catch is EnoughRead {
            } catch {
                answer.failure = "its streamed body failed: \(error)"
            }
            answer.body = collected
        }
        return answer
    }

    private func respondBlocking(to input: Request) -> Answer {
        let result = Mutex(Answer())
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let answer = await self.respond(to: input)
            result.withLock { $0 = answer }
            done.signal()
        }
        // Generous: a request that takes this long is hung, which is a finding too.
        if done.wait(timeout: .now() + 60) == .timedOut {
            return Answer(status: 0, failure: "no answer within 60 s (hung)")
        }
        return result.withLock { $0 }
    }

    /// By bytes (HashedKey): canonically equivalent keys are two rows.
    private static func changedKeys(_ before: [DefaultsEntry], _ after: [DefaultsEntry]) -> Set<HashedKey> {
        let old = Dictionary(before.map { (HashedKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        let new = Dictionary(after.map { (HashedKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        return Set(old.keys).union(new.keys).filter { key in
            switch (old[key], new[key]) {
            case (let a?, let b?): !SameValue.same(a, b)
            case (nil, nil): false
            default: true
            }
        }
    }

    /// Puts the changed keys back, so that every input meets the same store.
    private func restore(_ before: [DefaultsEntry], _ changed: Set<HashedKey>) {
        let old = Dictionary(before.map { (HashedKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        try? store.transaction { transaction in
            for key in changed {
                if let value = old[key] {
                    try transaction.set(Optional(value), for: DefaultsKey<SQLiteValue?>(key.name))
                } else {
                    try transaction.remove(DefaultsKey<SQLiteValue?>(key.name))
                }
            }
        }
    }
}

extension ConsoleRequestFuzz {
    /// A request as the input spells it, in text so that seeds are readable:
    ///
    /// ```
    /// ROUTE                 a ConsoleRoute's name (putKey, history, …); other text picks one by its bytes
    /// KEY                   the {key} segment as sent (percent-encoded), or empty
    /// QUERY                 the query after `?` as sent, or empty for none
    /// Name: value           header fields, any number; `:authority: …` sets the authority
    ///                       (blank line)
    /// BODY                  the rest, as sent
    /// ```
    ///
    /// `$ADMIN`, `$EDITOR`, `$VIEWER` in a header value are replaced by those tokens.
    struct Request: CustomStringConvertible, Sendable {
        var route: ConsoleRoute
        var key: String?
        var query: String?
        var fields: [(String, String)] = []
        var authority: String?
        var body: [UInt8]

        init(_ bytes: [UInt8]) {
            // Three lines (route, key, query), then header lines up to an empty one; the body
            // is the rest.
            var lines: [String] = []
            var start = bytes.startIndex
            var bodyStart = bytes.endIndex
            while start < bytes.endIndex {
                let end = bytes[start...].firstIndex(of: 10) ?? bytes.endIndex
                let line = String(decoding: bytes[start..<end], as: UTF8.self)
                start = min(end + 1, bytes.endIndex)
                if lines.count >= 3 && line.isEmpty {
                    bodyStart = start
                    break
                }
                lines.append(line)
            }
            body = Array(bytes[min(bodyStart, bytes.endIndex)...])
            while lines.count < 3 { lines.append("") }
            let name = lines[0]
            route = ConsoleRoute.allCases.first { "\($0)" == name }
                ?? ConsoleRoute.allCases[Int(name.utf8.reduce(0) { ($0 &* 31 &+ Int($1)) & 0xFFFF }) % ConsoleRoute.allCases.count]
            key = lines[1].isEmpty ? nil : lines[1]
            query = lines[2].isEmpty ? nil : lines[2]
            for line in lines.dropFirst(3) {
                guard let colon = line.dropFirst().firstIndex(of: ":") else { continue }
                let field = String(line[..<colon])
                var value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                for (stand, token) in ConsoleRequestFuzz.tokens { value = value.replacingOccurrences(of: stand, with: token) }
                if field == ":authority" { authority = value } else { fields.append((field, value)) }
            }
        }

        /// The path both adapters would pass for this route (mounted at the root).
        var path: String {
            "/" + route.segments.map { $0 == ":" + ConsoleRoute.keyParameter ? (key ?? "") : $0 }.joined(separator: "/")
        }

        func consoleRequest(logger: Logger) -> ConsoleRequest {
            var headers = HTTPFields()
            for (name, value) in fields {
                guard let fieldName = HTTPField.Name(name) else { continue }
                headers.append(HTTPField(name: fieldName, value: value))
            }
            let body = self.body
            let hasKey = route.segments.contains(":" + ConsoleRoute.keyParameter)
            return ConsoleRequest(
                method: route.method, path: path, query: query, headers: headers, authority: authority,
                keyParameter: hasKey ? (key ?? "") : nil, remote: .init(ip: "127.0.0.1", port: 40000), logger: logger,
                collectBody: { limit in
                    guard body.count <= limit else { throw ConsoleRequest.BodyTooLarge() }
                    return body
                })
        }

        /// Every key the request could mean: its segment and its `key=`/`keyHex=` query items,
        /// decoded here independently of the console's own decoding.
        var namedKeys: Set<String> {
            var names = Set<String>()
            if let key { names.insert(key.removingPercentEncoding ?? key) }
            for item in (query ?? "").split(separator: "&") {
                let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { continue }
                let value = String(parts[1])
                if parts[0] == "key" { names.insert(value.removingPercentEncoding ?? value) }
                if parts[0] == "keyHex" {
                    let hex = value.removingPercentEncoding ?? value
                    var bytes: [UInt8] = []
                    var digits = hex.makeIterator()
                    while let high = digits.next(), let low = digits.next(), let byte = UInt8(String([high, low]), radix: 16) { bytes.append(byte) }
                    names.insert(String(decoding: bytes, as: UTF8.self))
                }
            }
            return names
        }

        var description: String {
            "\(route.method) \(path)\(query.map { "?" + $0 } ?? "") [\(fields.map { "\($0.0): \($0.1)" }.joined(separator: "; "))] body \(body.count) bytes"
        }
    }
}
#endif

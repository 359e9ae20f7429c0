import Foundation
import Synchronization

/// How the change log's triggers learn that this library wrote a change, and who in it
/// (`Migrations/0008_writer_in_trigger.sql`).
///
/// Every connection of this library overrides SQLite's zero-argument `sqlite_source_id()` for
/// itself only, to answer this process's identity as a JSON object. The triggers store that
/// answer with each entry when it starts with `{`; every other SQL client gets the built-in's
/// answer (text starting with a date), and its entries are recorded as `sql`. So the writer is
/// recorded by the statement that writes, with no statement added before COMMIT, and other
/// clients need nothing and are refused nothing.
enum WriterIdentity {
    /// This process's identity as the triggers store it: `{"host":…,"pid":…,"program":…,"user":…}`
    /// (with `"actor"` and `"reason"` inside ``attribute(_:actor:reason:_:)``).
    static let json: String = encode(DefaultsWriter.current)

    /// `{"host":…,"pid":…,"program":…,"user":…}`: keys sorted, absent fields left out, strings
    /// escaped as RFC 8259 requires — the text JSONEncoder (`.sortedKeys`,
    /// `.withoutEscapingSlashes`) gives, which `WriterIdentityTests` check byte for byte.
    /// Written by hand because every store's open needs it: JSONEncoder's first use in a
    /// process instantiates generic containers whose requirements the runtime checks by
    /// scanning every conformance record in the binary (0.97 million instructions of a static
    /// `prefs read`, and the page faults of touching each record's type).
    static func encode(_ writer: DefaultsWriter) -> String {
        // Concatenated, not `joined(separator:)`: that generic runs unspecialised from the
        // standard library and looks its `Element` up at run time (another conformance scan).
        var object = "{"
        func add(_ field: String) {
            if object.utf8.count > 1 { object += "," }
            object += field
        }
        if let actor = writer.actor { add("\"actor\":" + quoted(actor)) }
        if let host = writer.host { add("\"host\":" + quoted(host)) }
        if let pid = writer.pid { add("\"pid\":" + String(pid)) }
        if let program = writer.program { add("\"program\":" + quoted(program)) }
        if let reason = writer.reason { add("\"reason\":" + quoted(reason)) }
        if let user = writer.user { add("\"user\":" + quoted(user)) }
        return object + "}"
    }

    /// `text` as a JSON string: `"` and `\` escaped, control characters as `\b` `\f` `\n`
    /// `\r` `\t` or `\u00XX` (lowercase hex, as JSONEncoder writes them), everything else as is.
    private static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// `json` as a C string that lives as long as the process: every connection's function
    /// returns this same pointer with SQLITE_STATIC, so SQLite never copies or frees it.
    /// `nonisolated(unsafe)` is safe: the pointer is set once, by the `let`'s thread-safe lazy
    /// initialisation, and its bytes are never written after `strdup` made them; every thread only reads.
    nonisolated(unsafe) private static let cString: UnsafeMutablePointer<CChar> = strdup(json)

    private struct Identity: Codable {
        let actor: String?
        let reason: String?
        let pid: Int32?
        let program: String?
        let user: String?
        let host: String?
    }

    /// Makes `sqlite_source_id()` on `database` answer this process's identity (and, inside
    /// ``attribute(_:actor:reason:_:)``, the actor and reason beside it). Call before any
    /// statement that writes `defaults` is prepared: a trigger's program binds its functions
    /// when the statement that fires it is prepared.
    ///
    /// The one SQLite built-in this library answers its own way (the Architecture article,
    /// "One redefined built-in"): the triggers record it as the writer of each change, and tell
    /// this library's connections by it (SQLite's own answer starts with a digit, this one with
    /// `{`), to leave the JSON grammar walk to other clients.
    static func install(on database: Database) throws {
        // `cString` is never freed, so SQLite may keep the pointer.
        try database.defineSwitchableAnswer("sqlite_source_id", SwitchableAnswer(UnsafePointer(cString)),
                                            operation: "naming this process as the writer of its changes")
    }

    /// Runs `body` with this connection's writes recorded as made for `actor` and because of
    /// `reason` (each left out when nil), then switches back to the process's identity. Called
    /// by the thread holding the connection, around a whole transaction: no statement runs
    /// while the text is switched or freed.
    static func attribute<Result>(_ database: Database, actor: String?, reason: String?,
                                  _ body: () throws -> Result) rethrows -> Result {
        guard actor != nil || reason != nil, let answer = database.switchableAnswer(named: "sqlite_source_id") else {
            return try body()
        }
        let previous = answer.text
        let text = strdup(encode(DefaultsWriter.current.attributed(actor: actor, reason: reason)))
        answer.text = UnsafePointer(text ?? cString)
        defer {
            answer.text = previous
            free(text)
        }
        return try body()
    }

    /// The writer a stored identity names; nil when the text is not one (another client wrote
    /// it by hand). Parsed identities are remembered: a file's log holds few distinct writers.
    static func writer(from text: String) -> DefaultsWriter? {
        if let known = parsed.withLock({ $0[text] }) { return known }
        guard let identity = try? JSONDecoder().decode(Identity.self, from: Data(text.utf8)) else { return nil }
        let writer = DefaultsWriter(kind: .library, pid: identity.pid, program: identity.program,
                                    user: identity.user, host: identity.host, actor: identity.actor, reason: identity.reason)
        parsed.withLock { cache in
            if cache.count >= 256 { cache.removeAll(keepingCapacity: true) }  // bounded, whatever the log holds
            cache[text] = writer
        }
        return writer
    }

    private static let parsed = Mutex<[String: DefaultsWriter]>([:])
}

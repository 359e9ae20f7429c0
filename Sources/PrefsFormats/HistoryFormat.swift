import Foundation
import SQLiteDefaults

/// How `prefs history` prints entries and `prefs watch --json` names a writer: the JSON of
/// the contract, and a one-line human form.
///
/// ```json
/// {"seq":42,"key":"timeout","value":45,"time":"2026-11-24T07:41:03.120Z",
///  "writer":{"kind":"library","pid":1234,"program":"prefs","user":"ada","host":"build-7"}}
/// ```
///
/// `value` is written as `export` writes values, `null` when the key was removed; a value too
/// large for the history to keep is `null` with `"omitted": BYTES` beside it. Writer fields
/// that are not known are left out. A key declared in the file gets `"type": "TYPE"` (the
/// CLI's word for its declared type, as the declaration stands now; declarations have no
/// history); an undeclared key's entries have no `type`.
///
/// `actor` and `reason` (who the change was made for, and why) follow `writer` at the top level,
/// each left out when unknown. A change of a secret key has `"value": null`, `"secret": true`
/// and, when the history has it, `"digest": "<hex>"` (equal digests: equal values); its value
/// is never printed.
package enum HistoryFormat {
    /// One entry as one line of compact JSON; `declaredType` is the key's declared type, if any.
    package static func json(_ entry: DefaultsHistoryEntry<SQLiteValue>, declaredType: DefaultsValueKind? = nil) -> String {
        var members = [
            #""seq":\#(entry.sequence)"#,
            #""key":\#(ExportFormat.quote(entry.key))"#,
        ]
        if let declaredType { members.append(#""type":"\#(declaredType.rawValue)""#) }
        members.append(#""value":\#(entry.value.written.map(ExportFormat.encode) ?? "null")"#)
        if let omitted = entry.omittedByteCount { members.append(#""omitted":\#(omitted)"#) }
        if case .secret(let digest) = entry.value {
            members.append(#""secret":true"#)
            if let digest { members.append(#""digest":\#(ExportFormat.quote(digest))"#) }
        }
        members.append(#""time":"\#(ISO8601.format(millisecondsSince1970: milliseconds(entry.date)))""#)
        members.append(#""writer":\#(json(entry.writer))"#)
        return "{" + members.joined(separator: ",") + Attribution.jsonMembers(entry.writer) + "}"
    }

    /// The declared type of each key of `entries` that `store` declares (none read when there
    /// are no entries), for ``json(_:declaredType:)`` and ``line(_:declaredType:)``. Read after
    /// the entries: a key declared in between shows its type.
    /// - Throws: `DefaultsError` when the declarations cannot be read.
    package static func declaredTypes(of entries: [DefaultsHistoryEntry<SQLiteValue>], in store: DefaultsStore) throws -> [HashedKey: DefaultsValueKind] {
        guard !entries.isEmpty else { return [:] }
        // By bytes: a canonically equivalent twin of a declared key is not declared.
        var types: [HashedKey: DefaultsValueKind] = [:]
        for declaration in try store.declarations() { types[HashedKey(declaration.key)] = declaration.type }
        return types
    }

    /// Entries as one JSON array, one entry per line (`[]` when empty); `declaredTypes` holds
    /// the declared type of each declared key.
    package static func jsonArray(_ entries: [DefaultsHistoryEntry<SQLiteValue>],
                                  declaredTypes: [HashedKey: DefaultsValueKind] = [:]) -> String {
        guard !entries.isEmpty else { return "[]" }
        return "[\n" + entries.map { json($0, declaredType: declaredTypes[HashedKey($0.key)]) }.joined(separator: ",\n") + "\n]"
    }

    /// A writer as a JSON object; unknown fields are left out.
    package static func json(_ writer: DefaultsWriter) -> String {
        var members = [#""kind":"\#(writer.kind.rawValue)""#]
        if let pid = writer.pid { members.append(#""pid":\#(pid)"#) }
        if let program = writer.program { members.append(#""program":\#(ExportFormat.quote(program))"#) }
        if let user = writer.user { members.append(#""user":\#(ExportFormat.quote(user))"#) }
        if let host = writer.host { members.append(#""host":\#(ExportFormat.quote(host))"#) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// One entry as a human line: `SEQ TIME KEY = VALUE (CLASS) by WRITER`, or `… KEY removed by
    /// WRITER`, or `… KEY = (N bytes, not kept) by WRITER`, or for a secret key `… KEY = (secret,
    /// digest 1a2b3c4d5e6f) by WRITER` (the digest's first 12 hex digits; `(secret)` without
    /// one). The actor and reason follow: `… by WRITER for alice: "INC-4711"` (see
    /// ``Attribution/text(_:)``). A declared key's line names its
    /// type after the key: `… timeout [int] = 45 (integer) by …`, and a declared bool's value
    /// is `true` or `false`; a declaration of a type this tool does not know (`unknownType`)
    /// shows as `… mode [unknown type "xyz"] = …`.
    package static func line(_ entry: DefaultsHistoryEntry<SQLiteValue>, declaredType: DefaultsValueKind? = nil,
                             unknownType: String? = nil) -> String {
        var head = "\(entry.sequence) \(ISO8601.format(millisecondsSince1970: milliseconds(entry.date))) \(ValueFormatting.escaped(entry.key))"
        if let declaredType {
            head += " [\(declaredType.rawValue)]"
        } else if let unknownType {
            head += " [unknown type \(ExportFormat.quote(unknownType))]"
        }
        let change: String
        if case .secret(let digest) = entry.value {
            change = "= " + secretText(digest: digest)
        } else if let omitted = entry.omittedByteCount {
            change = "= (\(omitted) bytes, not kept)"
        } else if let value = entry.value.written {
            change = "= \(ValueFormatting.displayRepresentation(value, declaredType: declaredType)) (\(value.storageClass))"
        } else {
            change = "removed"
        }
        return "\(head) \(change) by \(text(entry.writer))" + Attribution.text(entry.writer)
    }

    /// A secret's value as the human lines show it: `(secret)`, or `(secret, digest 1a2b3c4d5e6f)`
    /// with the first 12 hex digits of its digest.
    package static func secretText(digest: String?) -> String {
        guard let digest, !digest.isEmpty else { return "(secret)" }
        return "(secret, digest \(ValueFormatting.escaped(String(digest.prefix(12)))))"
    }

    /// A writer in words: `library prefs pid 1234 ada@build-7`, `sql`, `fleet from build-7`.
    package static func text(_ writer: DefaultsWriter) -> String {
        switch writer.kind {
        case .sql:
            return "sql"
        case .fleet:
            return writer.host.map { "fleet from \(ValueFormatting.escaped($0))" } ?? "fleet"
        case .library:
            var parts = ["library"]
            if let program = writer.program { parts.append(ValueFormatting.escaped(program)) }
            if let pid = writer.pid { parts.append("pid \(pid)") }
            switch (writer.user, writer.host) {
            case let (user?, host?): parts.append(ValueFormatting.escaped("\(user)@\(host)"))
            case let (user?, nil): parts.append(ValueFormatting.escaped(user))
            case let (nil, host?): parts.append(ValueFormatting.escaped("@\(host)"))
            case (nil, nil): break
            }
            return parts.joined(separator: " ")
        }
    }

    /// The date's whole milliseconds since 1970 (a history date is whole milliseconds; the
    /// rounding undoes `Date`'s binary fraction).
    package static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }
}

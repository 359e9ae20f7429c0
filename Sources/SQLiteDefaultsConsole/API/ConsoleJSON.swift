#if Console
import PrefsFormats
import SQLiteDefaults

/// The JSON the API sends, written by hand with the export format's encoder so that values
/// keep their storage class exactly (`2` is INTEGER, `2.0` REAL, BLOBs tagged `{"$data": …}`),
/// as `prefs export` writes them.
enum ConsoleJSON {
    /// One key: `{"key", "value", "text", "type", "storage", "declared", "seq", "default",
    /// "defaultText", "summary", "allowed", "changed", "writable"}`, `"secret": true` for a
    /// secret key, and `"keyHex"` for a key that is not valid UTF-8 (whose `key` is then its
    /// escaped address).
    ///
    /// `seq` is the key's version (the history sequence of its newest change, 0 when none is
    /// kept; what `If-Match` names), `value` the export format's JSON (null when unset), `text`
    /// the value as `prefs read` prints it (null when unset; `true`/`false` for a declared bool),
    /// `type` the CLI type word the page edits it by, `storage` the storage class held now (null
    /// when unset), `default` and `summary` null when none, `allowed` an array of raw values or
    /// null, `changed` the key's last change as one object of ``historyEntry(_:declaredType:secret:showsDigest:)``
    /// (null when the history keeps none), `writable` whether `principal` may change or remove it.
    ///
    /// A secret key's `value`, `text`, `default` and `defaultText` are null and `storage` is
    /// null too (the storage class says something about the value): only `GET api/secret`
    /// gives the value, to an admin.
    static func entry(_ entry: ConsoleEntry, principal: ConsolePrincipal) -> String {
        let declaration = entry.declaration
        let secret = entry.isSecret
        let value = secret ? nil : entry.value
        let defaultValue = secret ? nil : declaration?.defaultValue
        var members: [String] = [
            #""key":"# + ExportFormat.quote(entry.key),
            #""value":"# + (value.map(ExportFormat.encode) ?? "null"),
            #""text":"# + (value.map { ExportFormat.quote(text($0, declared: declaration?.type)) } ?? "null"),
            #""type":"# + ExportFormat.quote(ConsoleCatalog.type(of: entry).rawValue),
            #""storage":"# + (value.map { ExportFormat.quote($0.storageClass) } ?? "null"),
            #""declared":"# + (declaration == nil ? "false" : "true"),
            #""seq":\#(entry.version)"#,
        ]
        if secret {
            members.append(#""secret":true"#)
            members.append(#""set":"# + (entry.value == nil ? "false" : "true"))
        }
        // Only a key that is not UTF-8 has one: its exact bytes, for `api/keys?keyHex=`.
        if let bytes = entry.keyBytes { members.append(#""keyHex":"# + ExportFormat.quote(KeyAddress.bytes(bytes).hex)) }
        members.append(#""default":"# + (defaultValue.map(ExportFormat.encode) ?? "null"))
        members.append(#""defaultText":"# + (defaultValue.map { ExportFormat.quote(text($0, declared: declaration?.type)) } ?? "null"))
        members.append(#""summary":"# + (declaration?.summary.map(ExportFormat.quote) ?? "null"))
        members.append(#""allowed":"# + (declaration?.allowedValues.map { "[" + $0.map(ExportFormat.quote).joined(separator: ",") + "]" } ?? "null"))
        let writable = entry.keyBytes.map { principal.mayWrite(keyBytes: Array($0)) } ?? principal.mayWrite(key: entry.key)
        members.append(#""changed":"# + (entry.lastChange.map { historyEntry($0, secret: secret, showsDigest: writable || principal.mayReadSecrets) } ?? "null"))
        members.append(#""writable":"# + (writable ? "true" : "false"))
        return "{" + members.joined(separator: ",") + "}"
    }

    /// One history entry, with the members of `prefs history --json`: `{"seq", "key", "type",
    /// "value", "omitted", "secret", "digest", "time", "writer", "actor", "reason"}`. `type` only
    /// for a declared key; `value` null when the change removed the key, wrote a value too large
    /// to keep (`omitted` then gives its size) or wrote a secret; `secret: true` for a secret's
    /// change, with its `digest` (when the history has one) only when `showsDigest` (the
    /// principal may read or write that key: ``ConsolePrincipal/seesDigest(ofKeyBytes:)``);
    /// the digest is keyed by the key, so nobody can compare digests across keys; `actor` and
    /// `reason` left out when the change does not say them.
    ///
    /// `secret` masks a value the history kept in plain text (a key declared secret whose
    /// older entry a file of an earlier version kept): the console never sends a secret key's
    /// value, whatever the entry holds.
    static func historyEntry(_ entry: DefaultsHistoryEntry<SQLiteValue>, declaredType: DefaultsValueKind? = nil, secret: Bool = false,
                             showsDigest: Bool = false) -> String {
        var members = [
            #""seq":\#(entry.sequence)"#,
            #""key":"# + ExportFormat.quote(entry.key),
        ]
        if let declaredType { members.append(#""type":"# + ExportFormat.quote(declaredType.rawValue)) }
        switch entry.value {
        case .secret(let digest):
            members.append(#""value":null"#)
            members.append(#""secret":true"#)
            if showsDigest, let digest { members.append(#""digest":"# + ExportFormat.quote(digest)) }
        case .value where secret, .undecodable where secret:
            members.append(#""value":null"#)
            members.append(#""secret":true"#)
        case .tooLargeToKeep(let byteCount):
            members.append(#""value":null"#)
            if !secret { members.append(#""omitted":\#(byteCount)"#) } else { members.append(#""secret":true"#) }
        default:
            members.append(#""value":"# + (entry.value.written.map(ExportFormat.encode) ?? "null"))
        }
        members.append(#""time":"# + ExportFormat.quote(ISO8601.format(millisecondsSince1970: HistoryFormat.milliseconds(entry.date))))
        members.append(#""writer":"# + HistoryFormat.json(entry.writer))
        if let actor = entry.writer.actor { members.append(#""actor":"# + ExportFormat.quote(actor)) }
        if let reason = entry.writer.reason { members.append(#""reason":"# + ExportFormat.quote(reason)) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A value as the page shows it: as `prefs read` prints it, except that a declared `bool`
    /// reads `true`/`false` (it is stored as INTEGER 1/0), as an operator says it.
    static func text(_ value: SQLiteValue, declared type: ValueType?) -> String {
        if type == .bool, case .integer(let number) = value, number == 0 || number == 1 { return number == 1 ? "true" : "false" }
        return ValueFormatting.readRepresentation(value)
    }

    /// `GET api/session`: `{"name", "role", "prefixes"}`; `name` and `role` left out for the
    /// owner of a console without a token (``ConsolePrincipal/owner``: full access).
    static func session(_ principal: ConsolePrincipal) -> String {
        var members: [String] = []
        if let name = principal.name { members.append(#""name":"# + ExportFormat.quote(name)) }
        if principal != .owner { members.append(#""role":"# + ExportFormat.quote(principal.role.rawValue)) }
        members.append(#""prefixes":["# + principal.prefixes.map(ExportFormat.quote).joined(separator: ",") + "]")
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `{"error": message}`.
    static func error(_ message: String) -> String {
        #"{"error":"# + ExportFormat.quote(message) + "}"
    }

    /// One event of the stream: `{"seq", "key", "value", "text", "storage", "origin", "time",
    /// "writer", "actor", "reason"}` (`value`, `text`, `storage` null when the key was removed;
    /// `writer` as in `prefs history --json`, null when the change does not say who wrote it;
    /// `actor` and `reason` left out when the change does not say them). A secret key's value
    /// is never sent: its event has `"secret": true` and null `value`, `text` and `storage`
    /// when a value was written (it says that the key changed, not to what); a removal is
    /// sent as any other.
    static func event(seq: Int, change: AnyDefaultsChange, time: Double, secret: Bool) -> String {
        let written = change.newValue.flatMap { $0 == .null ? nil : $0 }
        let value = secret ? nil : written
        var members: [String] = [
            #""seq":\#(seq)"#,
            #""key":"# + ExportFormat.quote(change.key),
            #""value":"# + (value.map(ExportFormat.encode) ?? "null"),
            #""text":"# + (value.map { ExportFormat.quote(ValueFormatting.readRepresentation($0)) } ?? "null"),
            #""storage":"# + (value.map { ExportFormat.quote($0.storageClass) } ?? "null"),
        ]
        if secret && written != nil { members.append(#""secret":true"#) }
        members.append(#""origin":"# + ExportFormat.quote(change.origin.rawValue))
        members.append(#""time":"# + ExportFormat.quote(ISO8601.format(secondsSince1970: time)))
        members.append(#""writer":"# + (change.writer.map(HistoryFormat.json) ?? "null"))
        if let actor = change.writer?.actor { members.append(#""actor":"# + ExportFormat.quote(actor)) }
        if let reason = change.writer?.reason { members.append(#""reason":"# + ExportFormat.quote(reason)) }
        return "{" + members.joined(separator: ",") + "}"
    }

    /// `412`'s body: `{"error": message, "current": entry}`, `current` as ``entry(_:principal:)``
    /// (a secret masked), null when the key is neither stored nor declared now.
    static func conflict(_ message: String, current: ConsoleEntry?, principal: ConsolePrincipal) -> String {
        #"{"error":"# + ExportFormat.quote(message) + #","current":"# + (current.map { entry($0, principal: principal) } ?? "null") + "}"
    }

    /// `GET api/secret`: `{"key", "seq", "value", "text"}` (value null when unset).
    static func secretValue(key: String, value: SQLiteValue?, version: Int64, declared type: ValueType?) -> String {
        "{" + [
            #""key":"# + ExportFormat.quote(key),
            #""seq":\#(version)"#,
            #""value":"# + (value.map(ExportFormat.encode) ?? "null"),
            #""text":"# + (value.map { ExportFormat.quote(text($0, declared: type)) } ?? "null"),
        ].joined(separator: ",") + "}"
    }
}
#endif

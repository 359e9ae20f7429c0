#if Console
import PrefsFormats
import SQLiteDefaults

/// The JSON the API sends, written by hand with the export format's encoder so that values
/// keep their storage class exactly (`2` is INTEGER, `2.0` REAL, BLOBs tagged `{"$data": …}`),
/// as `prefs export` writes them.
enum ConsoleJSON {
    /// One key: `{"key", "value", "text", "type", "storage", "declared", "default", "summary",
    /// "allowed", "changed", "writable"}`, and `"keyHex"` for a key that is not valid UTF-8
    /// (whose `key` is then its escaped address).
    ///
    /// `value` is the export format's JSON (null when unset), `text` the value as `prefs read`
    /// prints it (null when unset; `true`/`false` for a declared bool), `type` the CLI type word
    /// the page edits it by, `storage` the storage class held now (null when unset), `default`
    /// and `summary` null when none,
    /// `allowed` an array of raw values or null, `changed` the key's last change as one object
    /// of `prefs history --json` (null when the history keeps none), `writable` whether
    /// `principal` may change or remove it.
    static func entry(_ entry: ConsoleEntry, principal: ConsolePrincipal) -> String {
        let declaration = entry.declaration
        var members: [String] = [
            #""key":"# + ExportFormat.quote(entry.key),
            #""value":"# + (entry.value.map(ExportFormat.encode) ?? "null"),
            #""text":"# + (entry.value.map { ExportFormat.quote(text($0, declared: declaration?.type)) } ?? "null"),
            #""type":"# + ExportFormat.quote(ConsoleCatalog.type(of: entry).rawValue),
            #""storage":"# + (entry.value.map { ExportFormat.quote($0.storageClass) } ?? "null"),
            #""declared":"# + (declaration == nil ? "false" : "true"),
        ]
        // Only a key that is not UTF-8 has one: its exact bytes, for `api/keys?keyHex=`.
        if let bytes = entry.keyBytes { members.append(#""keyHex":"# + ExportFormat.quote(KeyAddress.bytes(bytes).hex)) }
        members.append(#""default":"# + (declaration?.defaultValue.map(ExportFormat.encode) ?? "null"))
        members.append(#""defaultText":"# + (declaration?.defaultValue.map { ExportFormat.quote(text($0, declared: declaration?.type)) } ?? "null"))
        members.append(#""summary":"# + (declaration?.summary.map(ExportFormat.quote) ?? "null"))
        members.append(#""allowed":"# + (declaration?.allowedValues.map { "[" + $0.map(ExportFormat.quote).joined(separator: ",") + "]" } ?? "null"))
        members.append(#""changed":"# + (entry.lastChange.map { HistoryFormat.json($0) } ?? "null"))
        let writable = entry.keyBytes.map { principal.mayWrite(keyBytes: Array($0)) } ?? principal.mayWrite(key: entry.key)
        members.append(#""writable":"# + (writable ? "true" : "false"))
        return "{" + members.joined(separator: ",") + "}"
    }

    /// A value as the page shows it: as `prefs read` prints it, except that a declared `bool`
    /// reads `true`/`false` (it is stored as INTEGER 1/0), as an operator says it.
    static func text(_ value: SQLiteValue, declared type: ValueType?) -> String {
        if type == .bool, case .integer(let number) = value, number == 0 || number == 1 { return number == 1 ? "true" : "false" }
        return ValueFormatting.readRepresentation(value)
    }

    /// `GET api/history`: an array of the objects of `prefs history --json`, newest first,
    /// written by the same encoder (a declared key's entries carry its `type`).
    static func history(_ entries: [DefaultsHistoryEntry<SQLiteValue>], declaredTypes: [String: DefaultsValueKind]) -> String {
        HistoryFormat.jsonArray(entries, declaredTypes: declaredTypes)
    }

    /// `{"keys": [entry, …], "history": Bool}`: `history` says whether `api/history` is served;
    /// each entry's `writable` is for `principal`.
    static func keys(_ entries: [ConsoleEntry], history: Bool, principal: ConsolePrincipal) -> String {
        #"{"keys":["# + entries.map { entry($0, principal: principal) }.joined(separator: ",") + #"],"history":"# + (history ? "true" : "false") + "}"
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
    /// "writer"}` (`value`, `text`, `storage` null when the key was removed; `writer` as in
    /// `prefs history --json`, null when the change does not say who wrote it).
    static func event(seq: Int, change: AnyDefaultsChange, time: Double) -> String {
        let value = change.newValue.flatMap { $0 == .null ? nil : $0 }
        let members: [String] = [
            #""seq":\#(seq)"#,
            #""key":"# + ExportFormat.quote(change.key),
            #""value":"# + (value.map(ExportFormat.encode) ?? "null"),
            #""text":"# + (value.map { ExportFormat.quote(ValueFormatting.readRepresentation($0)) } ?? "null"),
            #""storage":"# + (value.map { ExportFormat.quote($0.storageClass) } ?? "null"),
            #""origin":"# + ExportFormat.quote(change.origin.rawValue),
            #""time":"# + ExportFormat.quote(ISO8601.format(secondsSince1970: time)),
            #""writer":"# + (change.writer.map(HistoryFormat.json) ?? "null"),
        ]
        return "{" + members.joined(separator: ",") + "}"
    }
}
#endif

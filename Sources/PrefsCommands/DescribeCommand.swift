#if Prefs
import ArgumentParser
import PrefsFormats
import SQLiteDefaults

/// `prefs describe [KEY…] [--json]`
struct DescribeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "describe",
        abstract: "Show declared keys, set or not: type, default, value, summary, allowed values.",
        discussion: """
            Every declared key, in key order, or only the KEYs named (a KEY that is not declared \
            exits 1). A declared bool shows false or true for its 0 or 1. With --json, one \
            object, key → {"type", "default", "summary", "allowed", "value"}: values as `export` \
            writes them; "value" absent when the key is unset, "summary", "allowed" and \
            "default" absent when there is none. A declaration whose type prefs does not know \
            (written past the table's CHECK by a SQL client) is shown as such, `unknown type \
            "T"` (in JSON "type": "T" with "unknownType": true): the database refuses every \
            value for it until it is undeclared or declared again. A secret key \
            (`declare --secret`) shows neither its value nor its default: the text reads \
            `secret   yes` and `(secret)` for each that is there; in JSON "secret": true, with \
            "default" and "value" null when there is one (absent when there is none). \
            `prefs read` prints its value.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The keys to describe (default: every declared key).")
    var keys: [String] = []

    @Flag(help: "Print one JSON object, key → description.")
    var json = false

    /// One row of `defaults_schema`: a declaration, or a type this tool does not know.
    enum Declared {
        case known(DefaultsDeclaration)
        case unknown(key: String, type: String)

        var key: String {
            switch self {
            case .known(let declaration): declaration.key
            case .unknown(let key, _): key
            }
        }
    }

    func run() throws {
        let store = try storeOptions.openExisting()
        var declared = try (store?.declarations() ?? []).map(Declared.known)
        declared += try (store?.declarationsOfUnknownTypeByBytes() ?? [:]).map { Declared.unknown(key: $0.key.name, type: $0.value) }
        declared.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        if !keys.isEmpty {
            // By bytes, as SQLite compares keys: a canonically equivalent twin is another key.
            let byKey = Dictionary(declared.map { (HashedKey($0.key), $0) }, uniquingKeysWith: { first, _ in first })
            declared = try keys.map { key in
                guard let found = byKey[HashedKey(key)] else { throw PrefsError("key \(ValueFormatting.quoted(key)) is not declared") }
                return found
            }
        }
        let values = Dictionary((try store?.allEntries() ?? []).map { (HashedKey($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
        let described = declared.map { (declared: $0, value: values[HashedKey($0.key)]) }
        try Console.outRaw(json ? Self.json(described) : Self.text(described))
    }

    static func json(_ described: [(declared: Declared, value: SQLiteValue?)]) -> String {
        guard !described.isEmpty else { return "{}\n" }
        let members = described.map { item -> String in
            var fields: [String]
            switch item.declared {
            case .known(let declaration):
                fields = ["\"type\": " + ExportFormat.quote(declaration.type.rawValue)]
                if declaration.isSecret { fields.append("\"secret\": true") }
                if let defaultValue = declaration.defaultValue {
                    fields.append("\"default\": " + (declaration.isSecret ? "null" : ExportFormat.encode(defaultValue)))
                }
                if let summary = declaration.summary { fields.append("\"summary\": " + ExportFormat.quote(summary)) }
                if let allowed = declaration.allowedValues {
                    fields.append("\"allowed\": [" + allowed.map(ExportFormat.quote).joined(separator: ", ") + "]")
                }
            case .unknown(_, let type):
                fields = ["\"type\": " + ExportFormat.quote(type), "\"unknownType\": true"]
            }
            if let value = item.value {
                let masked: Bool
                if case .known(let declaration) = item.declared { masked = declaration.isSecret } else { masked = false }
                fields.append("\"value\": " + (masked ? "null" : ExportFormat.encode(value)))
            }
            return "  " + ExportFormat.quote(item.declared.key) + ": {" + fields.joined(separator: ", ") + "}"
        }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }

    static func text(_ described: [(declared: Declared, value: SQLiteValue?)]) -> String {
        var output = ""
        for (declared, value) in described {
            output += ValueFormatting.escaped(declared.key) + "\n"
            let declaration: DefaultsDeclaration
            switch declared {
            case .known(let known):
                declaration = known
            case .unknown(_, let type):
                output += "  type     unknown type \(ExportFormat.quote(type)) (every value is refused)\n"
                output += "  value    " + (value.map(ValueFormatting.displayRepresentation) ?? "unset") + "\n"
                continue
            }
            let shown = { (value: SQLiteValue) in
                declaration.isSecret ? "(secret)" : ValueFormatting.displayRepresentation(value, declaredType: declaration.type)
            }
            var type = declaration.type.rawValue
            if let swiftType = declaration.swiftType { type += " (Swift \(ValueFormatting.escaped(swiftType)))" }
            output += "  type     \(type)\n"
            if declaration.isSecret { output += "  secret   yes\n" }
            output += "  default  " + (declaration.defaultValue.map(shown) ?? "none") + "\n"
            output += "  value    " + (value.map(shown) ?? "unset") + "\n"
            if let summary = declaration.summary { output += "  summary  " + ValueFormatting.escaped(summary) + "\n" }
            if let allowed = declaration.allowedValues {
                output += "  allowed  " + allowed.map(ValueFormatting.escaped).joined(separator: ", ") + "\n"
            }
        }
        return output
    }
}
#endif

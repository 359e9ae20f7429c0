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
            exits 1). With --json, one object, key → {"type", "default", "summary", "allowed", \
            "value"}: values as `export` writes them; "value" absent when the key is unset, \
            "summary", "allowed" and "default" absent when there is none.
            """
    )

    @OptionGroup var storeOptions: StoreOptions

    @Argument(help: "The keys to describe (default: every declared key).")
    var keys: [String] = []

    @Flag(help: "Print one JSON object, key → description.")
    var json = false

    func run() throws {
        let store = try storeOptions.openExisting()
        var declarations = try store?.declarations() ?? []
        if !keys.isEmpty {
            let byKey = Dictionary(declarations.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            declarations = try keys.map { key in
                guard let declaration = byKey[key] else { throw PrefsError("key \(ValueFormatting.quoted(key)) is not declared") }
                return declaration
            }
        }
        let values = Dictionary((try store?.allEntries() ?? []).map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        let described = declarations.map { (declaration: $0, value: values[$0.key]) }
        try Console.outRaw(json ? Self.json(described) : Self.text(described))
    }

    static func json(_ described: [(declaration: DefaultsDeclaration, value: SQLiteValue?)]) -> String {
        guard !described.isEmpty else { return "{}\n" }
        let members = described.map { item -> String in
            let declaration = item.declaration
            var fields = ["\"type\": " + ExportFormat.quote(declaration.type.rawValue)]
            if let defaultValue = declaration.defaultValue { fields.append("\"default\": " + ExportFormat.encode(defaultValue)) }
            if let summary = declaration.summary { fields.append("\"summary\": " + ExportFormat.quote(summary)) }
            if let allowed = declaration.allowedValues {
                fields.append("\"allowed\": [" + allowed.map(ExportFormat.quote).joined(separator: ", ") + "]")
            }
            if let value = item.value { fields.append("\"value\": " + ExportFormat.encode(value)) }
            return "  " + ExportFormat.quote(declaration.key) + ": {" + fields.joined(separator: ", ") + "}"
        }
        return "{\n" + members.joined(separator: ",\n") + "\n}\n"
    }

    static func text(_ described: [(declaration: DefaultsDeclaration, value: SQLiteValue?)]) -> String {
        var output = ""
        for (declaration, value) in described {
            output += ValueFormatting.escaped(declaration.key) + "\n"
            var type = declaration.type.rawValue
            if let swiftType = declaration.swiftType { type += " (Swift \(ValueFormatting.escaped(swiftType)))" }
            output += "  type     \(type)\n"
            output += "  default  " + (declaration.defaultValue.map(ValueFormatting.displayRepresentation) ?? "none") + "\n"
            output += "  value    " + (value.map(ValueFormatting.displayRepresentation) ?? "unset") + "\n"
            if let summary = declaration.summary { output += "  summary  " + ValueFormatting.escaped(summary) + "\n" }
            if let allowed = declaration.allowedValues {
                output += "  allowed  " + allowed.map(ValueFormatting.escaped).joined(separator: ", ") + "\n"
            }
        }
        return output
    }
}

import PrefsFormats
import SQLiteDefaults

/// A declared key as the console shows and enforces it: its type in the CLI's vocabulary,
/// default, summary and allowed values.
struct ConsoleDeclaration: Sendable, Equatable {
    /// The exact key.
    let key: String
    /// The declared type, which picks the editor and parses what the page sends.
    let type: ValueType
    /// The default as it would be stored; nil when the key has none.
    let defaultValue: SQLiteValue?
    /// One line for operators; nil when none was given.
    let summary: String?
    /// The raw values allowed (a `CaseIterable` enum's cases); nil when any value of the type is.
    let allowedValues: [String]?
}

/// One row of the store as the console lists it: a stored value, a declaration, or both.
struct ConsoleEntry: Sendable {
    let key: String
    let value: SQLiteValue?
    let declaration: ConsoleDeclaration?
}

/// The one seam between the console and the parts of the store that are still being built
/// (declared keys, history): everything else in the console reads through here, so wiring
/// them in changes this file only.
///
/// An undeclared key's type is the CLI word for the storage class it holds now; until the
/// library keeps a history, ``hasHistory`` is false and the history endpoint and view are not
/// exposed.
struct ConsoleCatalog: Sendable {
    let store: DefaultsStore

    /// Every declared key, in key order.
    /// - Throws: `DefaultsError` when the declarations cannot be read.
    func declarations() throws -> [ConsoleDeclaration] {
        try store.declarations().compactMap(Self.declaration)
    }

    /// The declaration of one key, or nil.
    /// - Throws: `DefaultsError` when the declarations cannot be read.
    func declaration(for key: String) throws -> ConsoleDeclaration? {
        try store.declaration(for: key).flatMap(Self.declaration)
    }

    /// The library's declaration in the console's terms (the type words are the same).
    private static func declaration(_ declaration: DefaultsDeclaration) -> ConsoleDeclaration? {
        guard let type = ValueType(rawValue: declaration.type.rawValue) else { return nil }
        return ConsoleDeclaration(key: declaration.key, type: type, defaultValue: declaration.defaultValue,
                                  summary: declaration.summary, allowedValues: declaration.allowedValues)
    }

    /// Whether the store keeps a history the console can show.
    var hasHistory: Bool { false }

    /// Every key, stored or declared, in key order, from one read of each.
    /// - Throws: `DefaultsError` when the table cannot be read.
    func entries() throws -> [ConsoleEntry] {
        let stored = try store.entries().filter { $0.value != .null }
        var declared: [String: ConsoleDeclaration] = [:]
        for declaration in try declarations() { declared[declaration.key] = declaration }
        var result: [ConsoleEntry] = stored.map { ConsoleEntry(key: $0.key, value: $0.value, declaration: declared.removeValue(forKey: $0.key)) }
        result += declared.values.map { ConsoleEntry(key: $0.key, value: nil, declaration: $0) }
        return result.sorted { $0.key < $1.key }
    }

    /// One key's entry; nil when it is neither stored nor declared.
    /// - Throws: `DefaultsError` when the row cannot be read.
    func entry(for key: String) throws -> ConsoleEntry? {
        let value = try store.value(for: DefaultsKey<SQLiteValue?>(key)).flatMap { $0 == .null ? nil : $0 }
        let declaration = try declaration(for: key)
        if value == nil && declaration == nil { return nil }
        return ConsoleEntry(key: key, value: value, declaration: declaration)
    }

    /// The CLI type word the page edits a value by: the declared type, or for an undeclared
    /// key the one that matches the storage class it holds now (TEXT → string).
    static func type(of entry: ConsoleEntry) -> ValueType {
        if let declaration = entry.declaration { return declaration.type }
        return switch entry.value {
        case .integer: .int
        case .real: .double
        case .blob: .data
        default: .string
        }
    }
}

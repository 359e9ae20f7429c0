#if Console
import Foundation
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
    /// The key; for a key that is not valid UTF-8, its address (``KeyAddress/shown``).
    let key: String
    let value: SQLiteValue?
    let declaration: ConsoleDeclaration?
    /// The key's newest change the history keeps (time and writer); nil when none is kept.
    var lastChange: DefaultsHistoryEntry<SQLiteValue>? = nil
    /// The key's bytes when they are not valid UTF-8 (no `String` names it); nil otherwise.
    var keyBytes: Data? = nil
    /// The key's version (the history sequence of its newest change; 0 when none is kept).
    var version: Int64 = 0
    /// Whether the key is secret (`DefaultsStore/secretKeys()`): its value and default are
    /// never sent.
    var isSecret = false

    init(key: String, value: SQLiteValue?, declaration: ConsoleDeclaration?, lastChange: DefaultsHistoryEntry<SQLiteValue>? = nil) {
        self.key = key
        self.value = value
        self.declaration = declaration
        self.lastChange = lastChange
    }

    /// A stored row whose key is not valid UTF-8 (never declared: declarations name keys by text).
    init(bytes: Data, value: SQLiteValue?) {
        self.init(key: KeyAddress.bytes(bytes).shown, value: value, declaration: nil)
        keyBytes = bytes
    }
}

/// The one seam between the console and the store's declarations and history: everything
/// else in the console reads them through here.
///
/// An undeclared key's type is the CLI word for the storage class it holds now.
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

    /// Whether the store keeps a history the console can show (every store since the third
    /// edition does; the page hides its history buttons when this is false).
    var hasHistory: Bool { true }

    /// How many of the newest changes the key list reads to find each key's last change: the
    /// file's kept length, bounded so that a file told to keep millions of changes does not
    /// make every page load read them all. A key whose newest change is older shows none.
    static let lastChangeWindow = 20_000

    /// The newest changes of `keys` (every key when nil), newest first, as `prefs history`
    /// lists them.
    /// - Throws: `DefaultsError` when the history cannot be read.
    func history(keys: [String]?, limit: Int, before: Int64? = nil) throws -> [DefaultsHistoryEntry<SQLiteValue>] {
        try store.history(keys: keys, limit: limit, before: before)
    }

    /// One key's entry; nil when it is neither stored nor declared.
    /// - Throws: `DefaultsError` when the row cannot be read.
    func entry(for key: String) throws -> ConsoleEntry? {
        let value = try store.value(for: DefaultsKey<SQLiteValue?>(key)).flatMap { $0 == .null ? nil : $0 }
        let declaration = try declaration(for: key)
        if value == nil && declaration == nil { return nil }
        var entry = ConsoleEntry(key: key, value: value, declaration: declaration,
                                 lastChange: try history(keys: [key], limit: 1).first)
        entry.version = try store.version(of: key)
        entry.isSecret = try store.secretKeysByBytes().contains(HashedKey(key))
        return entry
    }

    /// The secret keys (`DefaultsStore/secretKeys()`), whose values the console never sends
    /// but to an admin who asks for one.
    /// - Throws: `DefaultsError` when the declarations cannot be read.
    /// By their bytes, as SQLite compares keys: a key's canonically equivalent twin is
    /// another key, and is not secret because this one is.
    func secretKeys() throws -> Set<HashedKey> {
        try store.secretKeysByBytes()
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
#endif

/// Declared keys: a key's type, default and summary, kept in the file (table
/// `defaults_schema`) and enforced by the database for every client.
extension DefaultsStore {
    /// Declares keys of any value types in one call: records each key's type, Swift type,
    /// default, summary and allowed values in `defaults_schema`, after which the database
    /// refuses, from every client (this library, `prefs`, the `sqlite3` shell, Python, the
    /// fleet), a write the declaration does not accept.
    ///
    /// ```swift
    /// extension DefaultsKeys {
    ///     static let timeout = DefaultsKey<Int>("timeout", default: 30, summary: "Request timeout, in seconds")
    ///     static let theme   = DefaultsKey<Theme>("theme", default: .light)   // Theme: String, CaseIterable
    /// }
    /// try store.declare(DefaultsKeys.timeout, DefaultsKeys.theme)
    /// ```
    ///
    /// Idempotent: declaring what is already declared writes nothing and notifies nobody, so
    /// every process may declare its keys at start-up. A changed declaration (a new summary, a
    /// new default, another type) replaces the old one when the stored value fits it; to
    /// convert a stored value, use ``evolve(_:to:converting:)-4qjw0``. All the keys are declared in
    /// one transaction, or none; inside ``transaction(_:)-8rx6d`` they join it.
    ///
    /// - Throws: ``DefaultsError`` — `.declarationConflict` when a key's stored value does
    ///   not fit its declaration (the error names the key and the stored type; nothing is
    ///   declared) or a key's type cannot be declared (see ``DefaultsKey/declaration()``);
    ///   `.invalidKey`; `.busy`, `.readOnly`, `.diskFull`, `.closed`, as writes do.
    public func declare<each Value: Sendable>(_ keys: repeat DefaultsKey<each Value>) throws {
        var declarations: [DefaultsDeclaration] = []
        for key in repeat each keys { declarations.append(try key.declaration()) }
        try core.declare(declarations)
    }

    /// Declares one key from a declaration built by hand (a tool that knows no Swift type, such
    /// as `prefs declare`); otherwise as `declare(_:)` with typed keys.
    ///
    /// ```swift
    /// try store.declare(DefaultsDeclaration(key: "mode", type: .string, defaultValue: .text("fast"),
    ///                                       allowedValues: ["fast", "safe"]))
    /// ```
    ///
    /// - Throws: ``DefaultsError`` — `.declarationConflict` when the stored value, or the
    ///   declaration's own default, does not fit it, or allowed values are given for a type
    ///   other than `int`, `string` or `url`; the other errors of a write.
    public func declare(_ declaration: DefaultsDeclaration) throws {
        try core.declare([declaration])
    }

    /// Removes the declaration of `key`: it accepts any value again. The stored value stays.
    ///
    /// ```swift
    /// try store.undeclare("timeout")
    /// ```
    ///
    /// - Throws: ``DefaultsError`` — `.invalidKey`; `.busy`, `.readOnly`, `.closed`, as writes do.
    ///   Undeclaring a key that is not declared does nothing.
    public func undeclare(_ key: String) throws {
        try core.undeclare(key)
    }

    /// Every declaration in the file, sorted by key.
    ///
    /// ```swift
    /// for declaration in try store.declarations() { print(declaration.key, declaration.type) }
    /// ```
    ///
    /// A row whose type this library does not know (written by a SQL client past the table's
    /// CHECK, with `PRAGMA ignore_check_constraints = ON`) is left out here, and listed by
    /// ``declarationsOfUnknownType()``.
    ///
    /// - Returns: the declarations, as `defaults_schema` holds them.
    /// - Throws: ``DefaultsError`` — `.closed`, `.busy`, `.ioError`.
    public func declarations() throws -> [DefaultsDeclaration] {
        try core.declarations()
    }

    /// The declaration of `key`, or `nil` when it is not declared (or its row names a type this
    /// library does not know: see ``declarationsOfUnknownType()``).
    ///
    /// ```swift
    /// if let declared = try store.declaration(for: "timeout") { print(declared.type) }
    /// ```
    ///
    /// - Throws: as ``declarations()-5lj50``.
    public func declaration(for key: String) throws -> DefaultsDeclaration? {
        try core.declaration(for: key)
    }

    /// Rows of `defaults_schema` whose type this library does not know, key → the type as the
    /// row writes it. The table's CHECK refuses such a row; a SQL client can still write one
    /// with `PRAGMA ignore_check_constraints = ON`. The database then refuses every value for
    /// the key (no type it knows matches), and ``declarations()-5lj50`` leaves it out; tools show it,
    /// so an operator can see why and ``undeclare(_:)-7x4rf`` it (or declare the key again).
    ///
    /// ```swift
    /// for (key, type) in try store.declarationsOfUnknownType() { print("\(key): unknown type \(type)") }
    /// ```
    ///
    /// Keyed by `String`, which compares canonically equivalent names as equal: of two such
    /// keys (NFC and NFD "café", two rows to SQLite) the dictionary holds one. Code that looks
    /// keys up by name uses the package's byte-keyed form instead.
    ///
    /// - Returns: the keys and their types' text; empty in a healthy file.
    /// - Throws: ``DefaultsError`` — `.closed`, `.busy`, `.ioError`.
    public func declarationsOfUnknownType() throws -> [String: String] {
        Dictionary(try core.declarationsOfUnknownType().map { ($0.key.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    /// ``declarationsOfUnknownType()`` keyed by the names' bytes, as SQLite compares keys.
    /// - Throws: as ``declarationsOfUnknownType()``.
    package func declarationsOfUnknownTypeByBytes() throws -> [HashedKey: String] {
        try core.declarationsOfUnknownType()
    }

    /// The keys declared secret (``DefaultsDeclaration/isSecret``), for code that shows values
    /// and must mask those: one read of the declarations.
    ///
    /// ```swift
    /// let secret = try store.secretKeys()
    /// for entry in try store.entries() {
    ///     print(entry.key, secret.contains(entry.key) ? "••••••" : "\(entry.value)")
    /// }
    /// ```
    ///
    /// A `Set<String>` compares canonically equivalent names as equal, so when one of two such
    /// keys (NFC and NFD "café") is secret, `contains` is true for both: it may mask too much,
    /// never too little. To tell the two apart, ask ``declaration(for:)`` per key.
    ///
    /// - Throws: ``DefaultsError`` as a read does (`.closed`, …).
    public func secretKeys() throws -> Set<String> {
        Set(try core.secretKeys().map(\.name))
    }

    /// The keys declared secret, by their bytes (as SQLite compares keys): the package's own
    /// callers ask this, so that a key's canonically equivalent twin is never taken for it.
    /// - Throws: as ``secretKeys()``.
    package func secretKeysByBytes() throws -> Set<HashedKey> {
        try core.secretKeys()
    }
}

/// Evolving a declared key across versions of an app: a new type, a new name, or both.
extension DefaultsStore {
    /// Moves a key to a new declaration — another type, another name, or both — converting
    /// its stored value, in one transaction: observers hear each changed key once, after the
    /// commit, and when anything fails nothing changes.
    ///
    /// ```swift
    /// // Version 1 stored whole seconds; version 2 stores a Double under a clearer name.
    /// let oldTimeout = DefaultsKey<Int>("timeout", default: 30)
    /// let timeout = DefaultsKey<Double>("timeout_seconds", default: 30, summary: "Request timeout, in seconds")
    /// try store.evolve(oldTimeout, to: timeout) { Double($0) }
    /// ```
    ///
    /// What happens: the declaration of `old` goes; if `old` has a stored value it is read as
    /// `Old`, converted and written under `new` (and, when the names differ, `old`'s row is
    /// removed); then `new` is declared. When `old` has no stored value, only the declarations
    /// change (a value already stored under a different `new` name stays, and must fit).
    /// Running it again after it succeeded changes nothing (a renamed key finds nothing under
    /// `old`; a key evolved in place finds `new`'s declaration already there), so an app may
    /// call it at every start-up.
    ///
    /// - Parameters:
    ///   - old: the key as the previous version declared it (its type reads the stored value).
    ///   - new: the key as this version declares it.
    ///   - convert: makes the new value from the old one; what it throws comes out unchanged.
    /// - Throws: whatever `convert` throws; ``DefaultsError`` — `.typeMismatch` or
    ///   `.decodingFailed` when the stored value cannot be read as `Old`, `.declarationConflict`
    ///   when `new` cannot be declared or its stored value does not fit it, and the errors of
    ///   a write. Nothing changes when it throws.
    public func evolve<Old, New>(_ old: DefaultsKey<Old>, to new: DefaultsKey<New>,
                                 converting convert: (Old) throws -> New) throws {
        let declaration = try new.declaration()
        try StoreEngine.validate(old.name)
        try StoreEngine.validate(declaration)
        try core.evolve(old, to: new, declaration: declaration, converting: convert)
    }

    /// Renames a declared key, keeping its value and type: ``evolve(_:to:converting:)-4qjw0`` with
    /// no conversion.
    ///
    /// ```swift
    /// try store.evolve(DefaultsKey<Int>("timeout", default: 30), to: DefaultsKeys.requestTimeout)
    /// ```
    ///
    /// - Parameters:
    ///   - old: the key under its previous name.
    ///   - new: the key under its new name (and declaration).
    /// - Throws: as ``evolve(_:to:converting:)-4qjw0``.
    public func evolve<Value>(_ old: DefaultsKey<Value>, to new: DefaultsKey<Value>) throws {
        try evolve(old, to: new) { $0 }
    }
}

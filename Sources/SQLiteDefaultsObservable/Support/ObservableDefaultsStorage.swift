#if Observable
/// The per-object state of an `@ObservableDefaults` class: its Observation registrar, the
/// store it reads and writes, and the store observations that announce each committed
/// change of a persisted property to Observation.
///
/// Generated code only; you never call it yourself. The macro adds one to the class,
///
/// ```swift
/// private let _$defaultsStorage = SQLiteDefaultsObservable.ObservableDefaultsStorage(owner: "Settings")
/// ```
///
/// binds it in `setUpDefaults(store:ignoreExternalChanges:prefix:)`, and routes the
/// accessors of every persisted and observable-only property through it. Store observations
/// end when the object, and so this storage, is released.
///
/// Not `Sendable`: it lives inside its owner and is used under the owner's isolation. The
/// callbacks it registers with the store capture none of it (see `ObservationRelay`).
public final class ObservableDefaultsStorage {
    /// The registrar behind the owner's `Observable` conformance.
    public let registrar = ObservationRegistrar()

    private let owner: String
    @usableFromInline var boundStore: DefaultsStore?
    /// Whether the setters announce their own writes (when the store is not observed).
    private var announcesOwnWrites = true
    private var observations: [DefaultsObservation] = []

    /// Unbound storage for an object of the class named `owner` (named in error messages).
    public init(owner: String) {
        self.owner = owner
    }

    /// Uses `store` from now on, and ends the observations made on any store bound before.
    ///
    /// - Parameters:
    ///   - store: the store the object's properties are read from and written to.
    ///   - observesStore: `true` when ``observe(_:for:_:)`` will be called for every
    ///     persisted property: the store's notifications then announce every change, this
    ///     object's own writes included, exactly once and after the commit. `false`
    ///     (`ignoreExternalChanges`): the setters announce this object's writes themselves.
    public func bind(to store: DefaultsStore, observesStore: Bool) {
        observations.removeAll()
        boundStore = store
        announcesOwnWrites = !observesStore
    }

    // MARK: Persisted properties

    /// A persisted property's value, recorded as an access for `withObservationTracking`:
    /// the store's current value (from its cache) or the key's default.
    @inlinable
    public func value<Owner: Observable, Value>(
        of key: ObservableDefaultsKey<Value>,
        for owner: Owner,
        _ keyPath: KeyPath<Owner, Value>
    ) -> Value {
        registrar.access(owner, keyPath: keyPath)
        return value(of: key)
    }

    /// A persisted property's value without recording an access (a `didSet`'s `oldValue`).
    @inlinable
    public func value<Value>(of key: ObservableDefaultsKey<Value>) -> Value {
        guard let store = boundStore, let resolved = key.resolved else { notSetUp() }
        return store[resolved]
    }

    /// Writes a persisted property through the store (durable when it returns; a failure is
    /// logged and reported by the store).
    ///
    /// The change is announced to Observation once: by the store's notification of the commit
    /// when the store is observed (so a write that changes nothing, or fails, announces
    /// nothing), by this setter otherwise.
    public func setValue<Owner: Observable, Value>(
        _ newValue: Value,
        of key: ObservableDefaultsKey<Value>,
        for owner: Owner,
        _ keyPath: KeyPath<Owner, Value>
    ) {
        if announcesOwnWrites {
            registrar.withMutation(of: owner, keyPath: keyPath) {
                write(newValue, to: key)
            }
        } else {
            write(newValue, to: key)
        }
    }

    /// Writes a persisted `Equatable` property; when the setter announces its own writes,
    /// writing the value the property already has announces nothing (as the store's
    /// notifications never do).
    public func setValue<Owner: Observable, Value: Equatable>(
        _ newValue: Value,
        of key: ObservableDefaultsKey<Value>,
        for owner: Owner,
        _ keyPath: KeyPath<Owner, Value>
    ) {
        if announcesOwnWrites, value(of: key) != newValue {
            registrar.withMutation(of: owner, keyPath: keyPath) {
                write(newValue, to: key)
            }
        } else {
            write(newValue, to: key)
        }
    }

    private func write<Value>(_ newValue: Value, to key: ObservableDefaultsKey<Value>) {
        guard let store = boundStore, let resolved = key.resolved else { notSetUp() }
        store[resolved] = newValue
    }

    /// Announces every committed change of `key` — made by this object, another object on the
    /// same store, another store, another process or the `sqlite3` shell — as a mutation of
    /// `keyPath`, so that `withObservationTracking` on the property fires.
    ///
    /// The announcement is made after the commit, when reading the property already gives
    /// the new value, on the thread that delivers the store's notification (usually the
    /// writer's own for writes through this store, the store's monitor thread for others).
    public func observe<Owner: Observable & AnyObject, Value>(
        _ key: ObservableDefaultsKey<Value>,
        for owner: Owner,
        _ keyPath: KeyPath<Owner, Value>
    ) {
        guard let store = boundStore, let resolved = key.resolved else { notSetUp() }
        let relay: any ObservationRelaying = ObservationRelay(owner: owner, keyPath: keyPath, registrar: registrar)
        observations.append(store.observe(resolved) { _ in relay.relay() })
    }

    // MARK: Observable-only properties

    /// Records an access to an observable-only property.
    @inlinable
    public func access<Owner: Observable, Member>(_ owner: Owner, _ keyPath: KeyPath<Owner, Member>) {
        registrar.access(owner, keyPath: keyPath)
    }

    /// Applies `mutation` to an observable-only property, announcing it.
    @inlinable
    public func withMutation<Owner: Observable, Member>(
        of owner: Owner,
        _ keyPath: KeyPath<Owner, Member>,
        from oldValue: Member,
        to newValue: Member,
        _ mutation: () -> Void
    ) {
        registrar.withMutation(of: owner, keyPath: keyPath, mutation)
    }

    /// Applies `mutation` to an observable-only `Equatable` property, announcing it unless
    /// the value stays the same.
    @inlinable
    public func withMutation<Owner: Observable, Member: Equatable>(
        of owner: Owner,
        _ keyPath: KeyPath<Owner, Member>,
        from oldValue: Member,
        to newValue: Member,
        _ mutation: () -> Void
    ) {
        if oldValue == newValue {
            mutation()
        } else {
            registrar.withMutation(of: owner, keyPath: keyPath, mutation)
        }
    }

    @usableFromInline
    func notSetUp() -> Never {
        preconditionFailure(
            "\(owner): a persisted property was used before setUpDefaults(store:ignoreExternalChanges:prefix:); "
                + "with autoInit: false, call it at the end of your init"
        )
    }
}
#endif

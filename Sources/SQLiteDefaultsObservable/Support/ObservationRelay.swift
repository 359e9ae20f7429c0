#if Observable
/// What a store callback captures: a `Sendable` existential, so that the callback itself
/// carries no generic type from the owner's module.
protocol ObservationRelaying: Sendable {
    func relay()
}

/// Turns one key's store notifications into an Observation mutation of one property.
///
/// Sendable proof (`@unchecked`): every stored property is immutable after `init`
/// (`owner` is a weak reference that is only read; weak loads are atomic in the Swift
/// runtime); `ObservationRegistrar` is `Sendable` and locks its own state; the key path
/// is an immutable object that the registrar only hashes and compares, never applies, so
/// no isolated state of the owner is read off its actor. `owner` is passed to the
/// registrar only as the identity of the mutated subject.
final class ObservationRelay<Owner: Observable & AnyObject, Value>: ObservationRelaying, @unchecked Sendable {
    private weak var owner: Owner?
    private let keyPath: KeyPath<Owner, Value>
    private let registrar: ObservationRegistrar

    init(owner: Owner, keyPath: KeyPath<Owner, Value>, registrar: ObservationRegistrar) {
        self.owner = owner
        self.keyPath = keyPath
        self.registrar = registrar
    }

    /// Announces the change; the mutation itself is already committed and cached.
    func relay() {
        guard let owner else { return }
        registrar.withMutation(of: owner, keyPath: keyPath) {}
    }
}
#endif

/// The namespace for your keys: extend it with static properties so that call sites read
/// `store[.name]`.
///
/// ```swift
/// extension DefaultsKeys {
///     static let name = DefaultsKey<String>("name", default: "Guest")
/// }
/// store[.name] = "Ada"
/// ```
///
/// ``DefaultsKey`` inherits from this class: static members of a superclass are members of
/// the subclass too, which is what lets `.name` stand for a `DefaultsKey<String>` argument.
public class DefaultsKeys: @unchecked Sendable {
    // Sendable proof: this class has no stored properties, and its only subclass,
    // DefaultsKey, holds nothing but `let` properties of Sendable types.

    /// Internal: only ``DefaultsKey`` creates instances.
    init() {}
}

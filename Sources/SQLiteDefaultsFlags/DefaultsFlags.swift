#if Flags
public import SQLiteDefaults
import Synchronization

/// flagd's feature flags, kept in a `DefaultsStore` and evaluated in the process.
///
/// Each flag is its own key (`flagd.flag.<flag key>`), each shared evaluator too
/// (`flagd.evaluator.<name>`), and the flag set's metadata is one key (`flagd.metadata`); all
/// hold JSON text. So each flag is observed, has history (actor, reason, revert), is edited in
/// the console and travels through a fleet like any key.
///
/// Rules are compiled once and kept; every resolution reads the key through the store's
/// in-memory cache (no SQL when hot) and compiles again only when the text changed — after a
/// `prefs flags load`, another process's write, or a raw SQL update.
///
/// ```swift
/// let flags = DefaultsFlags(store: store)
/// let context = FlagEvaluationContext(targetingKey: user.id, attributes: ["email": .string(user.email)])
/// if flags.boolean("new-checkout", default: false, context: context).value { … }
/// ```
public final class DefaultsFlags: Sendable {
    /// The prefix of a flag's key: `flagd.flag.` then the flag key.
    public static let flagKeyPrefix = "flagd.flag."
    /// The prefix of a shared evaluator's key: `flagd.evaluator.` then its name.
    public static let evaluatorKeyPrefix = "flagd.evaluator."
    /// The key of the flag set's metadata (a JSON object).
    public static let metadataKey = "flagd.metadata"
    /// The prefix every key of the flags shares.
    public static let keyPrefix = "flagd."

    /// The store the flags are kept in.
    public let store: DefaultsStore
    let cache = Mutex(FlagCache())
    /// The metadata's key, made once (see ``readMetadata()``).
    let metadataStoreKey = DefaultsKey<String?>(DefaultsFlags.metadataKey)

    /// Flags over `store`. Cheap: nothing is read until a flag is resolved.
    public init(store: DefaultsStore) {
        self.store = store
    }

    /// Resolves a boolean flag.
    ///
    /// - Returns: the resolution; never throws (a failure is reason `.error` with the default).
    public func boolean(_ key: String, default fallback: Bool, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<Bool> {
        typed(key, .boolean, fallback, context) { if case .bool(let flag) = $0 { flag } else { nil } }
    }

    /// Resolves a string flag; see ``boolean(_:default:context:)``.
    public func string(_ key: String, default fallback: String, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<String> {
        typed(key, .string, fallback, context) { if case .string(let text) = $0 { text } else { nil } }
    }

    /// Resolves an integer flag; see ``boolean(_:default:context:)``.
    public func integer(_ key: String, default fallback: Int, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<Int> {
        typed(key, .integer, fallback, context) { if case .integer(let number) = $0 { Int(exactly: number) } else { nil } }
    }

    /// Resolves a floating-point flag (an integer variant is widened); see ``boolean(_:default:context:)``.
    public func double(_ key: String, default fallback: Double, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<Double> {
        typed(key, .float, fallback, context) {
            switch $0 {
            case .integer(let number): Double(number)
            case .double(let number): number
            default: nil
            }
        }
    }

    /// Resolves an object flag (a JSON object or array); see ``boolean(_:default:context:)``.
    public func object(_ key: String, default fallback: FlagValue, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<FlagValue> {
        resolve(key, type: .object, default: fallback, context: context)
    }

    /// Resolves a flag as `type`, with the default and the value as ``FlagValue``s: the form
    /// `prefs flags eval` and providers use.
    ///
    /// - Returns: the resolution; never throws.
    public func resolve(_ key: String, type: FlagValueType, default fallback: FlagValue, context: FlagEvaluationContext = FlagEvaluationContext()) -> FlagResolutionDetails<FlagValue> {
        var details = typed(key, type, fallback, context) { $0 }
        // A float flag answers a float, whichever way its variant was written (flagd's cores widen too).
        if type == .float, case .integer(let number) = details.value { details.value = .double(Double(number)) }
        return details
    }

    /// Resolves as `type` and converts the value; `convert` cannot fail after the type check,
    /// and `fallback` stands in if it ever did.
    private func typed<Value>(_ key: String, _ type: FlagValueType, _ fallback: Value, _ context: FlagEvaluationContext,
                              _ convert: (FlagValue) -> Value?) -> FlagResolutionDetails<Value> {
        let metadata: [String: FlagValue]
        do throws(FlagsError) {
            metadata = try readMetadata()
        } catch {
            return FlagResolutionDetails(value: fallback, variant: nil, reason: .error, error: FlagResolutionError(code: .general, message: error.description))
        }
        return FlagResolver(lookup: StoreEvaluatorLookup(flags: self), setMetadata: metadata)
            .resolve(key, flag: readFlag(key), type: type, default: fallback, context: context, convert: convert)
    }
}

#endif

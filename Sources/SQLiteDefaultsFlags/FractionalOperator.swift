#if Flags
/// flagd's `fractional`: a deterministic split of bucketing keys over weighted variants.
///
/// `{"fractional": [key, [variant, weight], …]}`, or the shorthand without `key`, whose key is
/// `[$flagd.flagKey, targetingKey]`. The key is normalised and encoded as canonical CBOR,
/// hashed with MurmurHash3 x86 32-bit (seed 0), and `bucket = (hash × totalWeight) >> 32`
/// picks the variant whose cumulative weight first exceeds it. A missing weight is 1, a
/// negative one 0. Every failure (no key, a malformed bucket, a total of zero or above
/// `Int32.max`) answers `null`, so that the flag's default variant is chosen.
enum FractionalOperator {
    static let maximumTotalWeight: Int64 = Int64(Int32.max)

    static func evaluate(_ arguments: [FlagValue], flagKey: String, targetingKey: String?) -> FlagValue {
        guard let first = arguments.first else { return .null }
        let key: FlagValue
        let buckets: ArraySlice<FlagValue>
        if case .array = first {
            guard let targetingKey, !targetingKey.isEmpty else { return .null }
            key = .array([.string(flagKey), .string(targetingKey)])
            buckets = arguments[...]
        } else {
            guard first != .null else { return .null }
            key = first
            buckets = arguments.dropFirst()
        }
        var variants: [FlagValue] = []
        var weights: [Int64] = []
        var total: Int64 = 0
        for bucket in buckets {
            guard case .array(let pair) = bucket, (1...2).contains(pair.count) else { return .null }
            var weight: Int64 = 1
            if pair.count == 2 {
                guard case .integer(let given) = pair[1] else { return .null }
                weight = max(0, given)
            }
            // Checked before adding, so that weights near Int64.max cannot overflow the sum.
            guard weight <= maximumTotalWeight - total else { return .null }
            total += weight
            variants.append(pair[0])
            weights.append(weight)
        }
        guard total > 0 else { return .null }
        let hash = UInt64(MurmurHash3.x86_32(CanonicalCBOR.encode(key)))
        let bucket = Int64((hash * UInt64(total)) >> 32)
        var rangeEnd: Int64 = 0
        for (variant, weight) in zip(variants, weights) {
            rangeEnd += weight
            if bucket < rangeEnd { return variant }
        }
        return .null
    }
}
#endif

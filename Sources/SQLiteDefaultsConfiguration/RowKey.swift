#if Configuration
import Configuration
import SQLiteDefaults

/// How a configuration key names a row of the `defaults` table.
enum RowKey {
    /// The row's key: the components joined by `"."`.
    ///
    /// - Throws: `DefaultsError` `.invalidKey` for no components, an empty component, or a
    ///   component holding a `"."` (it would name the same row as two components).
    static func name(of key: AbsoluteConfigKey) throws -> String {
        let joined = key.components.joined(separator: ".")
        if key.components.isEmpty {
            throw DefaultsError(.invalidKey, "a configuration key with no components names no row", key: joined)
        }
        if let index = key.components.firstIndex(where: \.isEmpty) {
            throw DefaultsError(
                .invalidKey,
                "configuration key \(key.components) has an empty component (at \(index)); it names no row",
                key: joined
            )
        }
        if let component = key.components.first(where: { $0.contains(".") }) {
            throw DefaultsError(
                .invalidKey,
                "configuration key \(key.components) has a component holding a \".\" (\"\(component)\"); "
                    + "split it into components instead",
                key: joined
            )
        }
        return joined
    }

    /// The untyped key for a row: reads the stored value as it is.
    static func rawKey(_ name: String) -> DefaultsKey<SQLiteValue?> {
        DefaultsKey<SQLiteValue?>(name)
    }
}
#endif

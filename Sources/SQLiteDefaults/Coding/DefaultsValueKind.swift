/// A declared key's type, in the words the `prefs` tool and `defaults_schema.type` use.
///
/// Each kind names the SQLite storage classes a value of the key may have; the database
/// refuses any other (see `DefaultsStore.declare(_:)`):
///
/// | kind | stored as |
/// | --- | --- |
/// | `bool` | INTEGER 0 or 1 |
/// | `int` | INTEGER |
/// | `double`, `date` | REAL or INTEGER (a date in seconds since 1970) |
/// | `string`, `url` | TEXT |
/// | `json` | TEXT that is valid JSON |
/// | `data` | BLOB |
///
/// ```swift
/// DefaultsValueKind(rawValue: "int")  // .int
/// DefaultsValueKind.int.accepts(.text("abc"))  // false
/// ```
public enum DefaultsValueKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `true`/`false`, stored as INTEGER 1/0.
    case bool
    /// A signed 64-bit integer, stored as INTEGER.
    case int
    /// A floating-point number, stored as REAL (INTEGER is accepted and widened).
    case double
    /// Text, stored as TEXT.
    case string
    /// JSON text (an array, an object or any JSON value), stored as TEXT.
    case json
    /// Bytes, stored as BLOB.
    case data
    /// A moment, stored as REAL (or INTEGER) seconds since 1970-01-01 UTC.
    case date
    /// A URL's absolute string, stored as TEXT.
    case url

    /// How deeply a `json` value's arrays and objects may nest: 1,000 levels.
    ///
    /// SQLite's JSON functions (the triggers' `json_valid`) take 1,000 levels since 3.42 and
    /// took 2,000 before, so 1,000 is what the database accepts on every version this library
    /// supports (3.34 on). Every door of this package checks this one number: ``accepts(_:)``
    /// (and so `declare` and `prefs write` for a declared key), `prefs write --type json`,
    /// `prefs import` and the console. A SQL client on a SQLite older than 3.42 can still store
    /// up to 2,000 levels in a `json` key; `prefs export` then writes such a value as a string,
    /// which `import` restores as the same text.
    ///
    /// ```swift
    /// let deepest = String(repeating: "[", count: 1_000) + String(repeating: "]", count: 1_000)
    /// DefaultsValueKind.json.accepts(.text(deepest))        // true
    /// DefaultsValueKind.json.accepts(.text("[" + deepest + "]"))  // false
    /// ```
    public static let maximumJSONDepth = 1_000

    /// The kind's name, as `prefs` and `defaults_schema` write it.
    public var description: String { rawValue }
}

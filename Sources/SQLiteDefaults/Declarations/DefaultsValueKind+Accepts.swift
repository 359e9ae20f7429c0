// The declaration rule of each kind lives with the declarations (it judges JSON with
// `JSONValidity`); the kinds themselves are how values are stored, in Coding/.
extension DefaultsValueKind {
    /// Whether a stored value has a storage class this kind allows, and (for `bool` and `json`)
    /// content it allows (for `json`: nested at most ``maximumJSONDepth`` levels). The same rule as the database's triggers; `NULL` is never a value
    /// (deleting the row unsets a key). Allowed values are checked by
    /// ``DefaultsDeclaration/accepts(_:)``.
    /// - Parameter value: a value as it is or would be stored.
    /// - Returns: whether the database accepts `value` for a key of this kind.
    public func accepts(_ value: SQLiteValue) -> Bool {
        switch (self, value) {
        case (.bool, .integer(let number)): number == 0 || number == 1
        case (.int, .integer): true
        case (.double, .real), (.double, .integer), (.date, .real), (.date, .integer): true
        case (.string, .text), (.string, .invalidUTF8Text), (.url, .text), (.url, .invalidUTF8Text): true
        case (.json, .text(let text)): JSONValidity.isValid(text)
        // SQLite judges JSON by its bytes, and reads bytes that are not UTF-8 as they are.
        case (.json, .invalidUTF8Text(let bytes)): JSONValidity.isValid(bytes)
        case (.data, .blob): true
        default: false
        }
    }
}

import SQLiteDefaults

/// The CLI's value types and the library's declared kinds are one vocabulary: the same eight
/// words, the same storage classes. Kept together here so neither can drift.
extension ValueType {
    /// The type with the same name as a declared kind.
    /// - Parameter kind: a declared key's kind.
    package init(_ kind: DefaultsValueKind) {
        switch kind {
        case .bool: self = .bool
        case .int: self = .int
        case .double: self = .double
        case .string: self = .string
        case .json: self = .json
        case .data: self = .data
        case .date: self = .date
        case .url: self = .url
        }
    }

    /// The declared kind with this type's name.
    package var kind: DefaultsValueKind {
        switch self {
        case .bool: .bool
        case .int: .int
        case .double: .double
        case .string: .string
        case .json: .json
        case .data: .data
        case .date: .date
        case .url: .url
        }
    }
}

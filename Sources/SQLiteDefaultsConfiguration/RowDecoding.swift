#if Configuration
import Configuration
import Foundation
import SQLiteDefaults

/// Reads a stored row as a configuration value of the asked type, by the mapping table in
/// ``DefaultsConfigProvider``.
enum RowDecoding {
    /// The row as `type`; `nil` for a missing row or SQL NULL. Secret when the key is declared
    /// secret in the file (`prefs declare --secret`) or the provider's specifier says so.
    ///
    /// - Throws: `DefaultsError` naming `key`: `.typeMismatch` for the wrong storage class,
    ///   `.decodingFailed` for a flag that is not 0/1 or a JSON array that does not decode.
    static func configValue(
        of row: SQLiteValue?,
        key: String,
        type: ConfigType,
        secrets: SecretsSpecifier<String, ConfigContent>,
        declaredSecret: Bool
    ) throws -> ConfigValue? {
        guard let row, row != .null else { return nil }
        let content = try self.content(of: row, key: key, type: type)
        return ConfigValue(content, isSecret: declaredSecret || secrets.isSecret(key: key, value: content))
    }

    static func content(of row: SQLiteValue, key: String, type: ConfigType) throws -> ConfigContent {
        do {
            switch type {
            case .string:
                // TEXT that is not valid UTF-8: `.decodingFailed` (a String would change it).
                if case .invalidUTF8Text = row { _ = try String(sqliteValue: row) }
                guard case .text(let text) = row else { throw mismatch(row, key: key, type: type, expected: "TEXT") }
                return .string(text)
            case .int:
                guard case .integer(let number) = row else { throw mismatch(row, key: key, type: type, expected: "INTEGER") }
                return .int(Int(number))
            case .double:
                switch row {
                case .real(let number): return .double(number)
                case .integer(let number): return .double(Double(number))
                default: throw mismatch(row, key: key, type: type, expected: "REAL or INTEGER")
                }
            case .bool:
                guard case .integer = row else { throw mismatch(row, key: key, type: type, expected: "INTEGER 0 or 1") }
                return .bool(try Bool(sqliteValue: row))
            case .bytes:
                guard case .blob(let data) = row else { throw mismatch(row, key: key, type: type, expected: "BLOB") }
                return .bytes(Array(data))
            case .stringArray:
                try requireText(row, key: key, type: type)
                return .stringArray(try [String](sqliteValue: row))
            case .intArray:
                try requireText(row, key: key, type: type)
                return .intArray(try [Int](sqliteValue: row))
            case .doubleArray:
                try requireText(row, key: key, type: type)
                return .doubleArray(try [Double](sqliteValue: row))
            case .boolArray:
                try requireText(row, key: key, type: type)
                return .boolArray(try [Bool](sqliteValue: row))
            case .byteChunkArray:
                try requireText(row, key: key, type: type)
                return .byteChunkArray(try [Data](sqliteValue: row).map { Array($0) })
            }
        } catch let error as DefaultsError where error.key == nil {
            // The library's own decoding error, which does not know the key yet.
            throw DefaultsError(error.code, "\(error.message) for configuration key '\(key)' read as \(type.rawValue)", key: key)
        }
    }

    /// `body`'s value, or its error said again with the key's declared type when the key is
    /// declared: a declared key's row always fits its declaration, so a row that cannot be read
    /// as the asked type means the reader asked for another type than the one declared.
    static func namingDeclaration<Result>(of key: String, in store: DefaultsStore, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as DefaultsError where error.code == .typeMismatch || error.code == .decodingFailed {
            guard let declaration = try? store.declaration(for: key) else { throw error }
            throw DefaultsError(error.code, "\(error.message); the key is declared \(declaration.type)", key: error.key ?? key,
                                sqliteCode: error.sqliteCode, sqliteMessage: error.sqliteMessage)
        }
    }

    private static func requireText(_ row: SQLiteValue, key: String, type: ConfigType) throws {
        guard case .text = row else { throw mismatch(row, key: key, type: type, expected: "TEXT holding a JSON array") }
    }

    private static func mismatch(_ row: SQLiteValue, key: String, type: ConfigType, expected: String) -> DefaultsError {
        DefaultsError(
            .typeMismatch,
            "configuration key '\(key)' was read as \(type.rawValue), which needs \(expected), but the row holds \(row.storageClass.uppercased())",
            key: key
        )
    }
}
#endif

import Foundation

/// The JSON dialect of collections and `Codable` values: sorted keys, so that equal values
/// are equal text (rewriting an unchanged value notifies nobody), dates as seconds since
/// 1970 (the same number a `Date` scalar stores), data as base64.
enum JSONCoding {
    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.dataEncodingStrategy = .base64
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        decoder.dataDecodingStrategy = .base64
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: "+Infinity", negativeInfinity: "-Infinity", nan: "NaN")
        return decoder
    }

    /// Encodes `value` as JSON text.
    static func encode<T: Encodable>(_ value: T) throws -> SQLiteValue {
        .text(try encodeText(value))
    }

    static func encodeText<T: Encodable>(_ value: T) throws -> String {
        do {
            let data = try encoder().encode(value)
            return String(decoding: data, as: UTF8.self)
        } catch {
            throw DefaultsError(.encodingFailed, "\(T.self) cannot be encoded as JSON: \(error)")
        }
    }

    /// Decodes `type` from JSON text; anything but TEXT is a type mismatch, TEXT that is not
    /// valid UTF-8 is not JSON.
    static func decode<T: Decodable>(_ type: T.Type, from value: SQLiteValue) throws -> T {
        if case .invalidUTF8Text = value { throw DefaultsError.decodingFailed(T.self, "the TEXT is not valid UTF-8") }
        guard case .text(let text) = value else { throw DefaultsError.typeMismatch(T.self, found: value) }
        return try decode(type, fromJSON: text)
    }

    static func decode<T: Decodable>(_ type: T.Type, fromJSON text: String) throws -> T {
        do {
            return try decoder().decode(T.self, from: Data(text.utf8))
        } catch {
            throw DefaultsError.decodingFailed(T.self, describe(error))
        }
    }

    /// A one-line reason from a `DecodingError`, without Foundation's debug dump.
    private static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}

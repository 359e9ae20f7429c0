#if Fleet
import Foundation
import SQLiteDefaults

/// What one push's `NOTIFY` says: its version and, when they fit in the payload, the rows it
/// wrote and when it committed, so a receiver that has applied every version below applies
/// them without fetching (half a round trip after the push instead of one and a half).
///
/// The payload is text (PostgreSQL's `NOTIFY` carries text shorter than 8000 bytes):
///
/// - `VERSION` alone: the push was too large to carry (or came from an older version of this
///   library); a receiver fetches.
/// - `VERSION MICROS JSON`: `MICROS` is PostgreSQL's clock, in microseconds since 1970, when the
///   push was written (for the lag metric); `JSON` is `{"o": origin, "r": rows}`, the pushing
///   machine's origin (`HOST:PATH`, as the table's `origin` column holds it, so history names the
///   machine a row came from) and an array of `{"k": key, "c": class, "v": value}` with class `i` (integer, `v` in decimal), `r` (real, `v` the IEEE 754 bit pattern in hex,
///   so every bit survives), `t` (text, `v` its bytes in base64: bytes that are not valid UTF-8
///   survive too), `b` (blob, base64), `n` (NULL) or `d` (deleted).
struct FleetNotice: Sendable, Equatable {
    /// The push's version.
    let version: Int64
    /// The rows it wrote, all at ``version``; nil when the payload did not carry them.
    let rows: [FleetRow]?
    /// PostgreSQL's clock when the push was written, in microseconds since 1970.
    let committedMicroseconds: Int64?

    /// The longest payload PostgreSQL accepts is 7999 bytes; the version (up to 19 digits),
    /// the time (up to 20) and two spaces come first.
    static let rowsByteLimit = 7_999 - 19 - 20 - 2

    /// Reads a payload; nil when it is not one of ours (then the receiver fetches).
    init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard let version = Int64(parts[0]) else { return nil }
        self.version = version
        guard parts.count == 3, let micros = Int64(parts[1]),
              let carried = try? JSONDecoder().decode(Carried.self, from: Data(parts[2].utf8)),
              let rows = try? carried.r.map({ try $0.row(version: version, origin: carried.o) }) else {
            rows = nil
            committedMicroseconds = nil
            return
        }
        self.rows = rows
        committedMicroseconds = micros
    }

    init(version: Int64, rows: [FleetRow]?, committedMicroseconds: Int64?) {
        self.version = version
        self.rows = rows
        self.committedMicroseconds = committedMicroseconds
    }

    /// The JSON part of a payload for `rows` pushed by `origin`, or nil when it would not fit
    /// (the push then notifies its version alone).
    static func rowsText(_ rows: [PendingRow], origin: String) -> String? {
        // Base64 and hex make a row at least its raw size: too large before encoding is too large.
        var estimate = origin.utf8.count
        for row in rows {
            estimate += row.key.utf8.count
            if case .blob(let bytes) = row.value { estimate += bytes.count }
            if case .text(let text) = row.value { estimate += text.utf8.count }
            if estimate > rowsByteLimit { return nil }
        }
        guard let data = try? JSONEncoder().encode(Carried(o: origin, r: rows.map(Entry.init))), data.count <= rowsByteLimit else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// The JSON part: who pushed, and the rows.
    private struct Carried: Codable {
        let o: String
        let r: [Entry]
    }

    /// One row as the payload spells it.
    private struct Entry: Codable {
        let k: String
        let c: String
        let v: String?

        init(_ row: PendingRow) {
            k = row.key
            switch row.value {
            case nil: (c, v) = ("d", nil)
            case .null: (c, v) = ("n", nil)
            case .integer(let number): (c, v) = ("i", String(number))
            case .real(let number): (c, v) = ("r", String(number.bitPattern, radix: 16))
            case .text(let text): (c, v) = ("t", Data(text.utf8).base64EncodedString())
            case .invalidUTF8Text(let bytes): (c, v) = ("t", bytes.base64EncodedString())
            case .blob(let bytes): (c, v) = ("b", bytes.base64EncodedString())
            }
        }

        struct Malformed: Error {}

        func row(version: Int64, origin: String) throws -> FleetRow {
            let value: SQLiteValue?
            switch (c, v) {
            case ("d", nil): value = nil
            case ("n", nil): value = .null
            case ("i", let text?):
                guard let number = Int64(text) else { throw Malformed() }
                value = .integer(number)
            case ("r", let text?):
                guard let bits = UInt64(text, radix: 16) else { throw Malformed() }
                value = .real(Double(bitPattern: bits))
            case ("t", let text?):
                guard let bytes = Data(base64Encoded: text) else { throw Malformed() }
                value = String(validating: bytes, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(bytes)
            case ("b", let text?):
                guard let bytes = Data(base64Encoded: text) else { throw Malformed() }
                value = .blob(bytes)
            default:
                throw Malformed()
            }
            return FleetRow(key: k, value: value, version: version, origin: origin)
        }
    }
}
#endif

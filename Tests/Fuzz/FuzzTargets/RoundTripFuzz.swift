import Foundation
import PrefsFormats
import SQLiteDefaults

/// What `export` writes, `import` restores exactly, for any value the store holds: the input
/// becomes a set of keys and values of every storage class (``FuzzValues``), written to one
/// store; that store is exported as `prefs export` does (``ExportFormat/encodeObject(_:)`` of
/// its entries), the text imported into a second, empty store as `prefs import` does (parse,
/// ``ExportFormat/decodeObject(_:)``, one transaction), and the two stores must hold the same
/// rows byte for byte. A value the store refuses (NaN, a key it does not take) is left out:
/// the promise is about what the store holds.
package final class RoundTripFuzz: Sendable {
    /// The two stores, opened once per process in a temporary folder.
    package static let shared: Result<RoundTripFuzz, FuzzFailure> = Result { () throws(FuzzFailure) in try RoundTripFuzz() }

    private let source: DefaultsStore
    private let target: DefaultsStore

    private init() throws(FuzzFailure) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("defaults-fuzz-\(getpid())-\(UUID().uuidString)").path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            source = try DefaultsStore(path: folder + "/exported.sqlite")
            target = try DefaultsStore(path: folder + "/imported.sqlite")
        } catch {
            throw FuzzFailure("cannot open the round trip's stores in \(folder): \(error)")
        }
    }

    /// - Throws: ``FuzzFailure`` when the imported store differs from the exported one.
    package func check(_ bytes: [UInt8]) throws(FuzzFailure) {
        do {
            try source.removeAll()
            try target.removeAll()
        } catch {
            throw FuzzFailure("cannot empty the stores: \(error)")
        }
        for (key, value) in FuzzValues.entries(from: bytes) {
            // One set each, so that a refused value leaves the others in.
            try? source.set(Optional(value), for: DefaultsKey<SQLiteValue?>(key))
        }
        let exported: [DefaultsEntry]
        do {
            exported = try source.entries().filter { $0.value != .null }
        } catch {
            throw FuzzFailure("cannot read the exported store: \(error)")
        }
        let json = ExportFormat.encodeObject(exported.map { ($0.key, $0.value) }) + "\n"
        let document: JSONDocument
        let decoded: [(key: String, value: SQLiteValue?)]
        do {
            document = try JSONDocument(parsing: Array(json.utf8))
        } catch {
            throw FuzzFailure("export wrote a file import cannot parse (\(error)):\n\(json)")
        }
        do {
            decoded = try ExportFormat.decodeObject(document)
        } catch {
            throw FuzzFailure("export wrote a file import refuses (\(error.message)):\n\(json)")
        }
        do {
            try target.transaction { transaction in
                for entry in decoded {
                    if let value = entry.value {
                        try transaction.set(Optional(value), for: DefaultsKey<SQLiteValue?>(entry.key))
                    } else {
                        try transaction.remove(DefaultsKey<SQLiteValue?>(entry.key))
                    }
                }
            }
        } catch {
            throw FuzzFailure("import of an exported file failed (\(error)):\n\(json)")
        }
        let imported: [DefaultsEntry]
        do {
            imported = try target.entries().filter { $0.value != .null }
        } catch {
            throw FuzzFailure("cannot read the imported store: \(error)")
        }
        guard imported.count == exported.count,
              zip(imported, exported).allSatisfy({ Array($0.key.utf8) == Array($1.key.utf8) && SameValue.same($0.value, $1.value) })
        else {
            throw FuzzFailure("""
                the import of an export differs from what was exported
                exported: \(exported.map { "\($0.key.debugDescription)=\($0.value)" })
                imported: \(imported.map { "\($0.key.debugDescription)=\($0.value)" })
                file:
                \(json)
                """)
        }
    }
}

/// Keys and values of every storage class from arbitrary bytes, so that the fuzzer's mutations
/// reach every corner of the export format: each entry is a kind byte, a key (length byte, then
/// its bytes as UTF-8 with invalid sequences replaced), and a payload (length byte, then bytes).
///
/// | kind % 6 | value |
/// | --- | --- |
/// | 0 | INTEGER from the payload's first 8 bytes (little-endian, zero-padded) |
/// | 1 | REAL whose bit pattern is those 8 bytes (infinities, `-0.0`, subnormals; NaN is refused) |
/// | 2 | TEXT: the payload as UTF-8, invalid sequences replaced (JSON-looking text, tags, escapes) |
/// | 3 | TEXT of the exact payload bytes (not valid UTF-8 → ``SQLiteValue/invalidUTF8Text(_:)``) |
/// | 4 | BLOB of the payload |
/// | 5 | TEXT: a tag-like object `{"$…": …}` around the payload, to meet `$text` |
package enum FuzzValues {
    package static func entries(from bytes: [UInt8]) -> [(String, SQLiteValue)] {
        var reader = ByteReader(bytes)
        var entries: [(String, SQLiteValue)] = []
        while !reader.isAtEnd, entries.count < 64 {
            let kind = reader.byte() % 6
            let key = String(decoding: reader.chunk(), as: UTF8.self)
            let payload = reader.chunk()
            let value: SQLiteValue
            switch kind {
            case 0: value = .integer(Int64(littleEndianBytes: payload))
            case 1: value = .real(Double(bitPattern: UInt64(bitPattern: Int64(littleEndianBytes: payload))))
            case 2: value = .text(String(decoding: payload, as: UTF8.self))
            case 3:
                value = String(validating: payload, as: UTF8.self).map(SQLiteValue.text) ?? .invalidUTF8Text(Data(payload))
            case 4: value = .blob(Data(payload))
            default: value = .text("{\"$" + String(decoding: payload, as: UTF8.self) + "\": \"x\"}")
            }
            entries.append((key, value))
        }
        return entries
    }
}

/// Reads an input front to back; past the end every read is empty or zero.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A length byte, then that many bytes (fewer at the end).
    mutating func chunk() -> [UInt8] {
        let count = min(Int(byte()), bytes.count - min(offset, bytes.count))
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}

extension Int64 {
    /// The first eight bytes, little-endian; missing bytes are zero.
    init(littleEndianBytes bytes: [UInt8]) {
        var value: UInt64 = 0
        for (index, byte) in bytes.prefix(8).enumerated() { value |= UInt64(byte) << (8 * UInt64(index)) }
        self = Int64(bitPattern: value)
    }
}

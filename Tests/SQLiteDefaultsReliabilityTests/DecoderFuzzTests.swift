import DefaultsTestSupport
import Foundation
import PropertyBased
import SQLiteDefaults
import Testing
import TestScheduling

// Types of every coding path: built-in scalars, RawRepresentable, Codable, collections, optionals.
enum FuzzTheme: String, Sendable { case light, dark }
enum FuzzLevel: Int, Sendable { case low = 1, high = 2 }
enum FuzzCodableRaw: String, Codable, Sendable { case on, off }
struct FuzzProfile: Codable, Equatable, Sendable {
    var name: String
    var age: Int
    var tags: [String]
    var joined: Date?
}

/// One key of some type over the row `name`: reads it every way and says what went wrong.
struct TypedProbe: Sendable {
    let type: String
    let check: @Sendable (DefaultsStore, String) -> [String]

    init<Value: Equatable & Sendable>(_ make: @escaping @Sendable (String) -> DefaultsKey<Value>) {
        type = "\(Value.self)"
        check = { store, name in
            let key = make(name)
            var problems: [String] = []
            let viaSubscript = store[key]
            do {
                let value = try store.value(for: key)
                if !same(value, viaSubscript) {
                    problems.append("subscript \(viaSubscript) ≠ value(for:) \(value)")
                }
            } catch let error as DefaultsError {
                if !same(viaSubscript, key.defaultValue) {
                    problems.append("value(for:) threw \(error.code) but the subscript returned \(viaSubscript), not the default")
                }
                if ![.typeMismatch, .decodingFailed].contains(error.code) {
                    problems.append("value(for:) threw \(error.code): \(error)")
                }
                if error.key != name { problems.append("the error does not name the key") }
                // modify must refuse what it cannot read, and leave the row alone.
                do {
                    try store.modify(key) { _ in }
                    problems.append("modify overwrote a row it could not decode")
                } catch let error as DefaultsError where [.typeMismatch, .decodingFailed].contains(error.code) {
                } catch {
                    problems.append("modify threw \(error)")
                }
            } catch {
                problems.append("value(for:) threw a foreign error \(error)")
            }
            return problems.map { "\(Value.self): \($0)" }
        }
    }
}

/// NaN-tolerant equality (a `[Double]` holding NaN is not `==` to itself).
func same<Value: Equatable>(_ a: Value, _ b: Value) -> Bool {
    a == b || String(describing: a) == String(describing: b)
}

let typedProbes: [TypedProbe] = [
    TypedProbe { DefaultsKey<Bool>($0, default: true) },
    TypedProbe { DefaultsKey<Int>($0, default: 7) },
    TypedProbe { DefaultsKey<Int8>($0, default: 7) },
    TypedProbe { DefaultsKey<Int16>($0, default: 7) },
    TypedProbe { DefaultsKey<Int32>($0, default: 7) },
    TypedProbe { DefaultsKey<Int64>($0, default: 7) },
    TypedProbe { DefaultsKey<UInt>($0, default: 7) },
    TypedProbe { DefaultsKey<UInt8>($0, default: 7) },
    TypedProbe { DefaultsKey<UInt16>($0, default: 7) },
    TypedProbe { DefaultsKey<UInt32>($0, default: 7) },
    TypedProbe { DefaultsKey<UInt64>($0, default: 7) },
    TypedProbe { DefaultsKey<Double>($0, default: 0.5) },
    TypedProbe { DefaultsKey<Float>($0, default: 0.5) },
    TypedProbe { DefaultsKey<String>($0, default: "default") },
    TypedProbe { DefaultsKey<Data>($0, default: Data([1, 2])) },
    TypedProbe { DefaultsKey<URL>($0, default: URL(string: "https://example.com")!) },
    TypedProbe { DefaultsKey<Date>($0, default: Date(timeIntervalSince1970: 1)) },
    TypedProbe { DefaultsKey<UUID>($0, default: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!) },
    TypedProbe { DefaultsKey<FuzzTheme>($0, default: .light) },
    TypedProbe { DefaultsKey<FuzzLevel>($0, default: .low) },
    TypedProbe { DefaultsKey<FuzzCodableRaw>($0, default: .off) },
    TypedProbe { DefaultsKey<FuzzProfile>($0, default: FuzzProfile(name: "d", age: 1, tags: [], joined: nil)) },
    TypedProbe { DefaultsKey<[Int]>($0, default: [1]) },
    TypedProbe { DefaultsKey<[String]>($0, default: ["d"]) },
    TypedProbe { DefaultsKey<[Double]>($0, default: [0.5]) },
    TypedProbe { DefaultsKey<[Bool]>($0, default: [true]) },
    TypedProbe { DefaultsKey<Set<String>>($0, default: ["d"]) },
    TypedProbe { DefaultsKey<[String: Int]>($0, default: ["d": 1]) },
    TypedProbe { DefaultsKey<[Date]>($0, default: []) },
    TypedProbe { DefaultsKey<[Data]>($0, default: []) },
    TypedProbe { DefaultsKey<[URL]>($0, default: []) },
    TypedProbe { DefaultsKey<[UInt64]>($0, default: []) },
    TypedProbe { DefaultsKey<[[String: [Double]]]>($0, default: []) },
    TypedProbe { DefaultsKey<[FuzzProfile]>($0, default: []) },
    TypedProbe { DefaultsKey<[FuzzCodableRaw]>($0, default: []) },
    TypedProbe { DefaultsKey<Int?>($0) },
    TypedProbe { DefaultsKey<String?>($0) },
    TypedProbe { DefaultsKey<FuzzProfile?>($0) },
    TypedProbe { DefaultsKey<FuzzTheme?>($0) },
    TypedProbe { DefaultsKey<[String]?>($0) },
    TypedProbe { DefaultsKey<Date?>($0, default: Date(timeIntervalSince1970: 5)) },
]

// MARK: - Generators

/// A stored value as SQL writes it: any storage class, and text that is not valid UTF-8.
enum RawCell: Sendable, CustomStringConvertible {
    case value(SQLiteValue)
    case invalidText([UInt8])

    /// A SQL literal with exactly these bytes and storage class.
    var literal: String {
        switch self {
        case .value(.null): "NULL"
        case .value(.integer(let number)): number == .min ? "(-9223372036854775807 - 1)" : "\(number)"
        case .value(.real(let number)):
            number.isInfinite ? (number > 0 ? "9e999" : "-9e999") : "CAST('\(number)' AS REAL)"
        case .value(.text(let text)): "CAST(X'\(hex(Array(text.utf8)))' AS TEXT)"
        case .value(.blob(let bytes)): "X'\(hex(Array(bytes)))'"
        case .value(.invalidUTF8Text(let bytes)): "CAST(X'\(hex(Array(bytes)))' AS TEXT)"
        case .invalidText(let bytes): "CAST(X'\(hex(bytes))' AS TEXT)"
        }
    }

    var description: String {
        switch self {
        case .value(let value): "\(value)".prefix(200) + ""
        case .invalidText(let bytes): "invalid UTF-8 text \(hex(bytes).prefix(200))"
        }
    }
}

func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// Texts that are almost what some type expects: numbers in text, JSON with the wrong
/// shapes, deep nesting, escapes, lone surrogates, enum raw values, URLs, UUIDs.
let nearMissTexts: [String] = [
    "", " ", "0", "1", "-1", "007", " 1", "1e3", "1.5", "18446744073709551615", "18446744073709551616",
    "-9223372036854775809", "9223372036854775808", "NaN", "+Infinity", "light", "dark", "purple", "on",
    "true", "false", "null", "[]", "{}", "[1,2,3]", "[1,\"two\"]", "[null]", "[1.5e400]", "[-0]",
    "{\"name\":\"Ada\",\"age\":3,\"tags\":[]}", "{\"name\":\"Ada\",\"age\":\"3\",\"tags\":[]}",
    "{\"name\":\"Ada\",\"age\":1e30,\"tags\":[]}", "{\"name\":\"Ada\"}", "{\"a\":[1.5,\"NaN\"]}",
    "[{\"a\":[1,2]}]", "[{\"a\":\"x\"}]", "[\"light\",\"blue\"]", "[\"AAEC\",\"!!\"]", "[\"http://a b\"]",
    "[\"\\ud800\"]", "\"\\u0000\"", "[\"\\u0000\"]", "{\"\":1}", "{\"a\":1,\"a\":2}", "[1,]", "[", "{\"a\":",
    "http://example.com/a b", "not a url %%", "://", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
    "e621e1f8-c36c-495a-93fc-0c247a3e6e5f", "E621E1F8C36C495A93FC0C247A3E6E5F", "{E621E1F8-C36C-495A-93FC-0C247A3E6E5F}",
    "[18446744073709551615]", "[\"18446744073709551616\"]", "[1e308,-1e308]", "[\"+Infinity\",\"-Infinity\"]",
    String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    String(repeating: "[", count: 100_000),
    String(repeating: "{\"a\":", count: 2_000) + "1" + String(repeating: "}", count: 2_000),
    "[" + String(repeating: "1,", count: 50_000) + "1]",
    String(repeating: "\u{1F600}", count: 100), "a\u{0}b", "\u{FEFF}[1]", "[1]\u{0}",
]

let rawCellGenerator = Generator<RawCell, Shrink.None<RawCell>> { rng in
    func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) } }
    switch int(0...9) {
    case 0:
        return .value(.null)
    case 1:
        let edges: [Int64] = [0, 1, -1, 2, 127, 128, 255, 256, -128, -129, 32_767, 65_535, 65_536,
                              Int64(Int32.max) + 1, Int64(UInt32.max) + 1, .max, .min, .max - 1]
        return .value(.integer(int(0...1) == 0 ? edges[int(0...edges.count - 1)] : Int64.random(in: .min ... .max, using: &rng)))
    case 2:
        let edges: [Double] = [0, -0.0, 1, -1, 0.5, 3, 1e308, -1e308, .infinity, -.infinity, .leastNonzeroMagnitude,
                               Double(Int64.max), Double(UInt64.max), 3.4e38, 3.5e38, 1e-46]
        return .value(.real(int(0...1) == 0 ? edges[int(0...edges.count - 1)] : Double(bitPattern: UInt64.random(in: 0 ... .max, using: &rng)).nonNaN))
    case 3:
        return .value(.text(nearMissTexts[int(0...nearMissTexts.count - 1)]))
    case 4:
        // Random Unicode text.
        let scalars = (0..<int(0...40)).compactMap { _ in Unicode.Scalar(UInt32.random(in: 1...0x10FFFF, using: &rng)) }
        return .value(.text(String(String.UnicodeScalarView(scalars))))
    case 5:
        return .invalidText(bytes(int(1...40)) + [0xFF, 0xC0])
    case 6:
        return .value(.blob(Data(bytes(int(0...64)))))
    case 7:
        // JSON-looking blobs (valid UTF-8 in the wrong storage class).
        return .value(.blob(Data(nearMissTexts[int(0...nearMissTexts.count - 1)].utf8)))
    case 8:
        return .value(.text(randomJSON(&rng, depth: 0)))
    default:
        return .value(.text(String(decoding: bytes(int(0...30)).map { $0 & 0x7F }, as: UTF8.self)))
    }
}

/// Random JSON of random shapes (what a hand-edited or older-version row might hold).
func randomJSON(_ rng: inout any SeededRandomNumberGenerator, depth: Int) -> String {
    switch Int.random(in: 0...(depth > 3 ? 4 : 6), using: &rng) {
    case 0: return "\(Int64.random(in: .min ... .max, using: &rng))"
    case 1: return "\(Double.random(in: -1e6...1e6, using: &rng))"
    case 2: return ["\"light\"", "\"x\"", "\"\\n\\\"\"", "\"2024-01-01T00:00:00Z\"", "\"AAEC\""].randomElement(using: &rng)!
    case 3: return ["true", "false", "null"].randomElement(using: &rng)!
    case 4: return "\"\(UUID().uuidString)\""
    case 5:
        return "[" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in randomJSON(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
    default:
        let names = ["name", "age", "tags", "joined", "a", ""]
        return "{" + (0..<Int.random(in: 0...4, using: &rng)).map { _ in
            "\"\(names.randomElement(using: &rng)!)\":" + randomJSON(&rng, depth: depth + 1)
        }.joined(separator: ",") + "}"
    }
}

extension Double {
    /// SQLite stores NaN as NULL; keep generated reals real.
    var nonNaN: Double { isNaN ? 0 : self }
}

// MARK: - Tests

/// Rows no key of this type could have written — random bytes, values of every storage
/// class, near-miss texts — under keys of every supported type. Reads never crash, the
/// subscript returns the default, `value(for:)` throws a decoding error naming the key,
/// `modify` refuses, and the row is left exactly as it was.
@Suite("Decoder fuzzing", .offThePool, .requiresSQLiteShell)
struct DecoderFuzzTests {
    /// Through raw SQL in the `sqlite3` shell, read by a fresh store each time.
    @Test func rawSQLRowsUnderEveryType() async throws {
        let directory = try TemporaryDirectory()
        do { _ = try DefaultsStore(path: directory.database) }
        let cases = Int(environmentNumber("FUZZ_SQL_CASES", default: 120))
        let tried = Collected<Int>()
        await propertyCheck(count: cases, input: rawCellGenerator.array(of: 1...4)) { cells in
            let names = cells.indices.flatMap { cell in typedProbes.indices.map { "fuzz.\(cell).\($0)" } }
            let inserts = cells.enumerated().flatMap { cell, raw in
                typedProbes.indices.map { "('fuzz.\(cell).\($0)', \(raw.literal))" }
            }
            let snapshotSQL = "SELECT key || '|' || typeof(value) || '|' || hex(value) FROM defaults ORDER BY key;"
            let before = try await sqlite3(directory.database, "DELETE FROM defaults; INSERT INTO defaults(key, value) VALUES \(inserts.joined(separator: ","));\n" + snapshotSQL)
            let store = try DefaultsStore(path: directory.database, configuration: quietConfiguration())
            var problems: [String] = []
            for (cell, raw) in cells.enumerated() {
                for (index, probe) in typedProbes.enumerated() {
                    problems += probe.check(store, "fuzz.\(cell).\(index)").map { "\(raw): \($0)" }
                }
            }
            tried.append(names.count)
            #expect(problems.isEmpty, "\(problems.prefix(10))")
            #expect(try await sqlite3(directory.database, snapshotSQL) == before, "a read or a refused modify changed a row")
        }
        reportFigure("decoder fuzzing (raw SQL): \(tried.all.reduce(0, +)) rows read under \(typedProbes.count) types")
    }

    /// Through the library's untyped key (`DefaultsKey<SQLiteValue?>`), read back typed from
    /// the same store, whose cache then holds the row: no SQL per read, same answers.
    @Test func untypedWritesReadUnderEveryType() async throws {
        let store = try DefaultsStore.inMemory()
        let cases = Int(environmentNumber("FUZZ_CACHE_CASES", default: 400))
        let tried = Collected<Int>()
        await propertyCheck(count: cases, input: rawCellGenerator) { raw in
            guard case .value(let value) = raw else { return }
            var problems: [String] = []
            for (index, probe) in typedProbes.enumerated() {
                let untyped = DefaultsKey<SQLiteValue?>("cache.\(index)")
                try store.set(value == .null ? nil : value, for: untyped)
                problems += probe.check(store, "cache.\(index)").map { "\(raw): \($0)" }
                let after = try store.value(for: untyped)
                #expect(after == (value == .null ? nil : value) || (after.map(canonical) == canonical(value)), "\(probe.type): the row changed")
            }
            tried.append(typedProbes.count)
            #expect(problems.isEmpty, "\(problems.prefix(10))")
        }
        reportFigure("decoder fuzzing (cached): \(tried.all.reduce(0, +)) rows read under \(typedProbes.count) types")
    }
}

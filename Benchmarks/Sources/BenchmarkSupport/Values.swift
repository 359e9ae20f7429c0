import Foundation
import SQLiteDefaults

/// The Codable struct of the benchmarks: small, as preferences are.
public struct BenchProfile: Codable, Equatable, Sendable {
    public var name: String
    public var age: Int
    public var tags: [String]

    public init(name: String, age: Int, tags: [String]) {
        self.name = name
        self.age = age
        self.tags = tags
    }
}

/// Precomputed values, so no benchmark times string formatting: consecutive entries differ,
/// so every set changes the row (a write of the value already stored is a no-op by design).
public enum Pool {
    public static let size = 1024
    public static let strings: [String] = (0..<size).map { "value-\($0)" }
    public static let profiles: [BenchProfile] = (0..<size).map {
        BenchProfile(name: "user \($0)", age: 20 + $0 % 60, tags: ["a", "b\($0 % 7)"])
    }
    /// The JSON the library stores for each profile (sorted keys), for the raw baseline.
    public static let profileJSON: [String] = profiles.map { json($0) }

    public static func json(_ profile: BenchProfile) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try! encoder.encode(profile), as: UTF8.self)
    }

    @inline(__always) public static func string(_ index: Int) -> String { strings[index & (size - 1)] }
    @inline(__always) public static func profile(_ index: Int) -> BenchProfile { profiles[index & (size - 1)] }
}

/// The keys every workload uses.
public enum BenchKeys {
    public static let int = DefaultsKey<Int>("bench.int", default: 0)
    public static let string = DefaultsKey<String>("bench.string", default: "")
    public static let profile = DefaultsKey<BenchProfile>("bench.profile", default: BenchProfile(name: "", age: 0, tags: []))
}

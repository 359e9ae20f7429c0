import Benchmark
import BenchmarkSuite
import BenchmarkSupport

// `set` in autocommit (Int, String, Codable) against raw SQLite's prepared upsert (on the
// library's schema, and for Int on a bare table too) and UserDefaults with and without
// synchronize(); 100 keys in one transaction; modify.
let benchmarks: @Sendable () -> Void = {
    Suite.configure()

    for subject in [Subject.defaults, .raw, .userDefaults, .userDefaultsSynchronized] {
        Suite.add("set Int · \(subject.rawValue)") { try Workloads.setInt(subject) }
        Suite.add("set String · \(subject.rawValue)") { try Workloads.setString(subject) }
        Suite.add("set Codable · \(subject.rawValue)") { try Workloads.setCodable(subject) }
    }
    Suite.add("set Int · raw SQLite, bare table") { try Workloads.setIntBare() }
    for subject in [Subject.defaults, .raw] {
        // One iteration is a transaction of 100 keys: per key is a hundredth.
        Suite.add("set 100 keys in one transaction · \(subject.rawValue)") { try Workloads.transaction100(subject) }
        Suite.add("modify Int (+1) · \(subject.rawValue)") { try Workloads.modify(subject) }
    }
}

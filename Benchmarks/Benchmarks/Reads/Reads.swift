import Benchmark
import BenchmarkSuite
import BenchmarkSupport

// `get`: a cached key (Int, String, Codable) against a Mutex-guarded Dictionary, UserDefaults
// and an uncached raw SQLite SELECT; a get right after another connection's write; the first
// get of a key (a SQL read).
let benchmarks: @Sendable () -> Void = {
    Suite.configure()

    for subject in [Subject.defaults, .dictionary, .userDefaults, .raw] {
        Suite.add("get Int · \(subject.rawValue)", scaling: .kilo) { try Workloads.getInt(subject) }
        Suite.add("get String · \(subject.rawValue)", scaling: .kilo) { try Workloads.getString(subject) }
        Suite.add("get Codable · \(subject.rawValue)", scaling: .kilo) { try Workloads.getCodable(subject) }
    }

    Suite.add("get Int after external write · SQLiteDefaults", maxIterations: 2_000) {
        try Workloads.getAfterExternalWrite(codable: false)
    }
    Suite.add("get Codable after external write · SQLiteDefaults", maxIterations: 2_000) {
        try Workloads.getAfterExternalWrite(codable: true)
    }

    let rows = RunMode.isSmoke ? 1_000 : 100_000
    for subject in [Subject.defaults, .raw] {
        Suite.add("get Int uncached (SQL) · \(subject.rawValue)", maxIterations: rows) {
            try Workloads.getUncached(subject, rows: rows)
        }
    }
}

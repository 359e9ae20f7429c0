import Benchmark
import BenchmarkSuite
import FlagWorkloads

// Flags (SQLiteDefaultsFlags) from cached rules: a static flag (targets ≤ 0.3 µs), a targeting
// rule of a few clauses and a `fractional` split (≤ 2 µs each). flagd's own Go benchmark
// reports 1.4, 7–9 and 10–11 µs on a desktop i9.
let benchmarks: @Sendable () -> Void = {
    Suite.configure()
    Suite.add("flag static · SQLiteDefaults", scaling: .kilo) { try FlagWorkloads.resolve("static-flag", "static") }
    Suite.add("flag targeting (4 clauses) · SQLiteDefaults", scaling: .kilo) { try FlagWorkloads.resolve("targeted-flag", "targeting") }
    Suite.add("flag fractional · SQLiteDefaults", scaling: .kilo) { try FlagWorkloads.resolve("fractional-flag", "fractional") }
}

// swift-tools-version: 6.1
// The benchmark suite of SQLiteDefaults: its own package, so the library's users never resolve
// benchmark-only dependencies. Run it with
//
//     swift package --package-path Benchmarks benchmark            # every benchmark, time + mallocs
//     bash Benchmarks/compare.sh                                    # one table of ratios
//     bash Benchmarks/fleet.sh                                      # the fleet sync through PostgreSQL
//
import PackageDescription

let package = Package(
    name: "SQLiteDefaultsBenchmarks",
    // No `platforms`: like the library, built and run on Linux only.
    dependencies: [
        // Every trait of the root (the Observable benchmark needs @ObservableDefaults, FleetRatios
        // the fleet, Flags the flags; the others only add what no benchmark builds): so the
        // library's modules compile with the flags of the root's own builds, and CI builds the
        // suite in the scratch folders those builds made (the debug one of `swift test
        // --enable-all-traits`, the release one of Scripts/prefs-release.sh) without compiling
        // the library again.
        .package(name: "SQLiteDefaults", path: "..",
                 traits: ["Observable", "Configuration", "ServiceLifecycle", "Fleet", "Console", "Prefs", "Vapor", "Flags"]),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // Already in the graph through package-benchmark (ordo-one/benchmark); the ratio table counts mallocs with it.
        .package(url: "https://github.com/ordo-one/malloc-interposer.git", from: "1.6.1"),
        // Only FleetRatios uses it (the library's fleet sync already depends on it); the other
        // targets never build it.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // Raw SQLite for the baseline: the library's own shim is not a product.
        .systemLibrary(
            name: "CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        // The workloads, the references (raw SQLite, Mutex<Dictionary>, UserDefaults) and the
        // measuring helpers, shared by the package-benchmark targets and the ratio table.
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                "CSQLiteBench",
                .product(name: "SQLiteDefaults", package: "SQLiteDefaults"),
            ]
        ),
        // Registers the workloads as package-benchmark benchmarks (shared by every benchmark target).
        .target(
            name: "BenchmarkSuite",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "Benchmark", package: "benchmark"),
            ]
        ),
        // The flags' workloads (SQLiteDefaultsFlags), for the Flags benchmark target and Ratios' profiles.
        .target(
            name: "FlagWorkloads",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SQLiteDefaults", package: "SQLiteDefaults"),
                .product(name: "SQLiteDefaultsFlags", package: "SQLiteDefaults"),
            ]
        ),
        // The second process of the external-write latency benchmark.
        .executableTarget(
            name: "BenchWriter",
            dependencies: [
                "CSQLiteBench",
                .product(name: "SQLiteDefaults", package: "SQLiteDefaults"),
            ]
        ),
        // `compare.sh`: the workloads measured side by side, printed as one table of ratios.
        .executableTarget(
            name: "Ratios",
            dependencies: [
                "BenchmarkSupport",
                "BenchWriter",
                "FlagWorkloads",
                .product(name: "SQLiteDefaults", package: "SQLiteDefaults"),
                .product(name: "MallocInterposerSwift", package: "malloc-interposer"),
            ]
        ),
        // `startup.sh`: a minimal program that embeds the store (open a file, read one key) and
        // its raw floor (sqlite3_open, one SELECT), each built statically as a user's CLI would be.
        .executableTarget(
            name: "CoreStartup",
            dependencies: [.product(name: "SQLiteDefaults", package: "SQLiteDefaults")]
        ),
        .executableTarget(
            name: "RawStartup",
            dependencies: ["CSQLiteBench"]
        ),
        // `fleet.sh`: the PostgreSQL fleet sync (SQLiteDefaultsPostgres) between stores of one
        // process, through a throwaway server: latency, a burst to 10 machines, set cost.
        // Not part of Ratios nor of the package-benchmark targets, so CI never builds postgres-nio.
        .executableTarget(
            name: "FleetRatios",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "SQLiteDefaultsPostgres", package: "SQLiteDefaults"),
                .product(name: "SQLiteDefaults", package: "SQLiteDefaults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ]
)

// package-benchmark targets: Benchmarks/<Name>/<Name>.swift.
let benchmarkTargets: [(name: String, extra: [Target.Dependency])] = [
    ("Reads", []),
    ("Writes", []),
    ("Notifications", ["BenchWriter"]),
    ("Scale", []),
    ("Observable", [.product(name: "SQLiteDefaultsObservable", package: "SQLiteDefaults")]),
    ("Flags", ["FlagWorkloads", .product(name: "SQLiteDefaultsFlags", package: "SQLiteDefaults")]),
]
for (name, extra) in benchmarkTargets {
    package.targets.append(.executableTarget(
        name: name,
        dependencies: [
            "BenchmarkSupport",
            "BenchmarkSuite",
            .product(name: "Benchmark", package: "benchmark"),
        ] + extra,
        path: "Benchmarks/\(name)",
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    ))
}

// Swift 6 language mode everywhere (tools version 6.1), plus the flags the library uses.
for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

let package = Package(
    name: "SQLiteDefaults",
    // No `platforms`: Linux is the one platform built and tested (README, "Platforms and requirements").
    products: [
        .library(name: "SQLiteDefaults", targets: ["SQLiteDefaults"]),
        .library(name: "SQLiteDefaultsObservable", targets: ["SQLiteDefaultsObservable"]),
        // For users' own tests: a temporary store, a change collector, `eventually`.
        .library(name: "SQLiteDefaultsTesting", targets: ["SQLiteDefaultsTesting"]),
        .executable(name: "prefs", targets: ["prefs"]),
        // Serving: a swift-configuration provider, and a swift-service-lifecycle service. Users
        // of the core library build neither dependency.
        .library(name: "SQLiteDefaultsConfiguration", targets: ["SQLiteDefaultsConfiguration"]),
        .library(name: "SQLiteDefaultsServiceLifecycle", targets: ["SQLiteDefaultsServiceLifecycle"]),
        // Fleet: one set of preferences across machines, through PostgreSQL (postgres-nio).
        .library(name: "SQLiteDefaultsPostgres", targets: ["SQLiteDefaultsPostgres"]),
        // The console: a web page and JSON API over a store (Hummingbird), served by
        // `prefs serve` or mounted in an app's own router. Core users build none of it.
        .library(name: "SQLiteDefaultsConsole", targets: ["SQLiteDefaultsConsole"]),
        // Vapor: the store as an application service (`app.defaults`, `req.defaults`), the
        // console mounted on a RoutesBuilder, and `prefs` as a command of the app.
        .library(name: "SQLiteDefaultsVapor", targets: ["SQLiteDefaultsVapor"]),
        // Flags: flagd's flag sets, kept as keys and evaluated in the process (no dependency).
        .library(name: "SQLiteDefaultsFlags", targets: ["SQLiteDefaultsFlags"]),
    ],
    // Each integration sits behind a trait (SE-0450): `traits: []` resolves swift-log and
    // swift-metrics alone, and the defaults are only the traits that cost no heavy package, so a
    // plain `.package(url:from:)` line resolves no web framework, PostgreSQL client or
    // swift-syntax (Scripts/consumers.sh checks it). `swift run prefs demo` works with the
    // defaults; this repository's tests run with `--enable-all-traits`.
    traits: [
        .default(enabledTraits: ["Configuration", "ServiceLifecycle", "Prefs", "Flags"]),
        .trait(name: "Observable", description: "@ObservableDefaults (SQLiteDefaultsObservable): the macro, through swift-syntax."),
        .trait(name: "Configuration", description: "A swift-configuration provider over a store (SQLiteDefaultsConfiguration)."),
        .trait(name: "ServiceLifecycle", description: "A swift-service-lifecycle service that closes a store (SQLiteDefaultsServiceLifecycle)."),
        .trait(name: "Fleet", description: "One set of preferences across machines through PostgreSQL (SQLiteDefaultsPostgres, postgres-nio)."),
        .trait(name: "Console", description: "The web console and JSON API over a store as Hummingbird routes (SQLiteDefaultsConsole)."),
        .trait(name: "Prefs", description: "The prefs command-line tool (swift-argument-parser); its serve and sync need Console and Fleet."),
        // Vapor's console adapter mounts the console (Console) and its command runs prefs's
        // commands (Prefs), so the trait brings both.
        .trait(name: "Vapor", description: "The store, the console and prefs in a Vapor 4 app (SQLiteDefaultsVapor).", enabledTraits: ["Console", "Prefs"]),
        .trait(name: "Flags", description: "flagd's feature flags kept in the store and evaluated in the process (SQLiteDefaultsFlags); no dependency."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // The widest range the macro compiles and passes its tests with (CI runs them at both
        // ends: Scripts/consumers.sh), so an app whose other macro packages pin an older
        // swift-syntax still resolves.
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .systemLibrary(
            name: "CSQLiteDefaults",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .executableTarget(
            name: "MigrationEmbedder",
            path: "Sources/MigrationEmbedder"
        ),
        .plugin(
            name: "EmbedMigrations",
            capability: .buildTool(),
            dependencies: ["MigrationEmbedder"]
        ),
        // The store: the one module a core user builds, on swift-log and swift-metrics only.
        .target(
            name: "SQLiteDefaults",
            dependencies: [
                "CSQLiteDefaults",
                "SanitizerMutex",
                .product(name: "Logging", package: "swift-log"),
                // The API package only (no backend): commits, external changes, monitor looks.
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            plugins: ["EmbedMigrations"]
        ),
        .target(name: "SQLiteDefaultsTesting", dependencies: ["SQLiteDefaults", "SanitizerMutex"]),
        .testTarget(name: "SQLiteDefaultsTestingTests", dependencies: ["TestScheduling", "SQLiteDefaultsTesting", "SQLiteDefaults"]),
        // The macros' expansions, a library their tests link directly: a test target depending on
        // a macro target makes SwiftPM build every module the tests use twice (a quarter of the
        // debug build's CPU time here).
        .target(
            name: "SQLiteDefaultsMacroExpansion",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftDiagnostics", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftParser", package: "swift-syntax", condition: .when(traits: ["Observable"])),
            ]
        ),
        // The compiler plugin: the macros by the names `#externalMacro` gives, each forwarding to
        // its expansion in SQLiteDefaultsMacroExpansion.
        .macro(
            name: "SQLiteDefaultsMacros",
            dependencies: [
                "SQLiteDefaultsMacroExpansion",
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax", condition: .when(traits: ["Observable"])),
            ]
        ),
        .target(
            name: "SQLiteDefaultsObservable",
            dependencies: ["SQLiteDefaults", .target(name: "SQLiteDefaultsMacros", condition: .when(traits: ["Observable"]))]
        ),
        // Child processes with their output read line by line: for `prefs demo` and the tests.
        .target(name: "ChildProcesses", dependencies: ["SanitizerMutex"]),
        // A pthread lock ThreadSanitizer can follow: the library's Mutex under Scripts/sanitize.sh,
        // and always the lock of ChildProcesses and the test helper.
        .target(name: "SanitizerMutex"),
        // The CLI's own text formats (JSON reader, export format, ISO 8601, value text), pure
        // and unit-tested; not a product.
        .target(name: "PrefsFormats", dependencies: ["SQLiteDefaults"]),
        // `prefs`'s commands, a library so that SQLiteDefaultsVapor's DefaultsCommand runs the
        // same implementation; `serve` exists with the Console trait, `sync` with the Fleet trait.
        .target(
            name: "PrefsCommands",
            dependencies: [
                "SQLiteDefaults",
                "PrefsFormats",
                "ChildProcesses",
                .target(name: "SQLiteDefaultsPostgres", condition: .when(traits: ["Fleet"])),
                .target(name: "SQLiteDefaultsConsole", condition: .when(traits: ["Console"])),
                .target(name: "SQLiteDefaultsFlags", condition: .when(traits: ["Flags"])),
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Console"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Prefs"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // `prefs`: its entry point alone.
        .executableTarget(name: "prefs", dependencies: ["PrefsCommands"]),
        .executableTarget(
            name: "DefaultsTestHelper",
            dependencies: ["SQLiteDefaults", "SanitizerMutex"],
            path: "Tests/DefaultsTestHelper"
        ),
        // Where the test bodies run: threads of their own, off the cooperative pool (TestExecutor).
        .target(name: "TestScheduling", path: "Tests/TestScheduling"),
        // Test support shared by the test suites (not a product).
        .target(
            name: "DefaultsTestSupport",
            dependencies: ["SQLiteDefaults", "SQLiteDefaultsTesting", "ChildProcesses"],
            path: "Tests/DefaultsTestSupport"
        ),
        // Fuzzing (Scripts/fuzz.sh builds these with libFuzzer): the checks, one executable per
        // fuzzed surface, and a suite that replays the corpora and regressions (not products).
        .target(
            name: "FuzzTargets",
            dependencies: [
                "SQLiteDefaults",
                "PrefsFormats",
                .target(name: "SQLiteDefaultsConsole", condition: .when(traits: ["Console"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Console"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/Fuzz/FuzzTargets"
        ),
        .executableTarget(name: "FuzzImportReader", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzImportReader"),
        .executableTarget(name: "FuzzRoundTrip", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzRoundTrip"),
        .executableTarget(name: "FuzzConsoleRequest", dependencies: ["FuzzTargets"], path: "Tests/Fuzz/FuzzConsoleRequest"),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["TestScheduling", "FuzzTargets"]),
        // The fleet at scale (Scripts/fleet-scale.py): many real syncs in one process.
        .executableTarget(
            name: "FleetSimulator",
            dependencies: [
                "SQLiteDefaults",
                .target(name: "SQLiteDefaultsPostgres", condition: .when(traits: ["Fleet"])),
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/FleetScale/FleetSimulator"
        ),
        .testTarget(
            name: "SQLiteDefaultsTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaults", "SQLiteDefaultsTesting", "CSQLiteDefaults", "ChildProcesses", "DefaultsTestSupport", "DefaultsTestHelper",
                "SanitizerMutex",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        // A test-only SQLite VFS over the default one: records writes and syncs for the
        // power-loss tests, fails the Nth call for the I/O-error tests (not a product).
        .target(
            name: "FaultVFS",
            dependencies: ["CSQLiteDefaults"],
            path: "Tests/FaultVFS"
        ),
        .executableTarget(
            name: "ReliabilityHelper",
            dependencies: ["SQLiteDefaults", "DefaultsTestSupport"],
            path: "Tests/ReliabilityHelper"
        ),
        .testTarget(
            name: "SQLiteDefaultsReliabilityTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "DefaultsTestHelper",
                "ReliabilityHelper",
                "FaultVFS",
                "CSQLiteDefaults",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "prefsTests",
            dependencies: ["TestScheduling", "prefs", "PrefsFormats", "SQLiteDefaults", "SQLiteDefaultsTesting", "ChildProcesses"]
        ),
        // Flags: flagd's rules over the store's keys; the tests carry flagd-testbed's suites.
        .target(name: "SQLiteDefaultsFlags", dependencies: ["SQLiteDefaults"]),
        .testTarget(
            name: "SQLiteDefaultsFlagsTests",
            dependencies: ["TestScheduling", "SQLiteDefaultsFlags", "SQLiteDefaults", "SQLiteDefaultsTesting"],
            exclude: ["Resources"]
        ),
        .testTarget(
            name: "PrefsFormatsTests",
            dependencies: ["TestScheduling", "PrefsFormats", "SQLiteDefaults"]
        ),
        .testTarget(
            name: "SQLiteDefaultsMacrosTests",
            dependencies: [
                "SQLiteDefaultsMacroExpansion",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax", condition: .when(traits: ["Observable"])),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax", condition: .when(traits: ["Observable"])),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsObservableTests",
            dependencies: ["TestScheduling", "SQLiteDefaultsObservable", "DefaultsTestSupport", "DefaultsTestHelper"]
        ),
        // The generated code must also compile where everything is MainActor by default.
        .testTarget(
            name: "SQLiteDefaultsObservableMainActorTests",
            dependencies: ["SQLiteDefaultsObservable"],
            swiftSettings: [.defaultIsolation(MainActor.self)]
        ),
        // A ConfigProvider over a store. swift-configuration is built with
        // NonisolatedNonsendingByDefault; a provider's watch methods must match it.
        .target(
            name: "SQLiteDefaultsConfiguration",
            dependencies: [
                "SQLiteDefaults",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
            ],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        .testTarget(
            name: "SQLiteDefaultsConfigurationTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaultsConfiguration",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "prefs",
                .product(name: "Configuration", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
                .product(name: "ConfigurationTesting", package: "swift-configuration", condition: .when(traits: ["Configuration"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        // A swift-service-lifecycle Service that closes a store on graceful shutdown.
        .target(
            name: "SQLiteDefaultsServiceLifecycle",
            dependencies: [
                "SQLiteDefaults",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsServiceLifecycleTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaultsServiceLifecycle",
                "SQLiteDefaults",
                "DefaultsTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["ServiceLifecycle"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Fleet: a Service that carries a store's changes to and from a PostgreSQL table.
        .target(
            name: "SQLiteDefaultsPostgres",
            dependencies: [
                "SQLiteDefaults",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "NIOSSL", package: "swift-nio-ssl", condition: .when(traits: ["Fleet"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Fleet"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
        // The console: page, JSON API and event stream over a store, as Hummingbird routes.
        .target(
            name: "SQLiteDefaultsConsole",
            dependencies: [
                "SQLiteDefaults",
                "PrefsFormats",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Console"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Console"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Console"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsConsoleTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaultsConsole",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "prefs",
                .product(name: "Hummingbird", package: "hummingbird", condition: .when(traits: ["Console"])),
                .product(name: "HummingbirdTesting", package: "hummingbird", condition: .when(traits: ["Console"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Console"])),
                // The same suites run against the Vapor mount.
                .target(name: "SQLiteDefaultsVapor", condition: .when(traits: ["Vapor"])),
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
            ]
        ),
        // Vapor: `app.defaults` (the store's lifetime), `req.defaults`, the console's Vapor
        // adapter, and `DefaultsCommand` (prefs's commands against the app's store).
        .target(
            name: "SQLiteDefaultsVapor",
            dependencies: [
                "SQLiteDefaults",
                .target(name: "SQLiteDefaultsConsole", condition: .when(traits: ["Vapor"])),
                .target(name: "PrefsCommands", condition: .when(traits: ["Vapor"])),
                .product(name: "Vapor", package: "vapor", condition: .when(traits: ["Vapor"])),
                .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["Vapor"])),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsVaporTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaultsVapor",
                "SQLiteDefaults",
                "DefaultsTestSupport",
                .product(name: "VaporTesting", package: "vapor", condition: .when(traits: ["Vapor"])),
            ]
        ),
        // A throwaway PostgreSQL server for the fleet tests and benchmarks (initdb, pg_ctl).
        .target(
            name: "PostgresTestSupport",
            dependencies: ["ChildProcesses"],
            path: "Tests/PostgresTestSupport"
        ),
        .testTarget(
            name: "SQLiteDefaultsPostgresTests",
            dependencies: [
                "TestScheduling",
                "SQLiteDefaultsPostgres",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "PostgresTestSupport",
                "prefs",
                .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["Fleet"])),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: .when(traits: ["Fleet"])),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ]
        ),
    ]
)

// Swift 6 language mode everywhere, plus the upcoming features we hold ourselves to.
for target in package.targets where target.type != .system && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    target.swiftSettings = settings
}

// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let package = Package(
    name: "SQLiteDefaults",
    // No `platforms`: Linux is the one platform built and tested (README, "Platforms and requirements").
    products: [
        .library(name: "SQLiteDefaults", targets: ["SQLiteDefaults"]),
        .library(name: "SQLiteDefaultsObservable", targets: ["SQLiteDefaultsObservable"]),
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
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // 602 is the floor; 603 is allowed because with the Swift 6.3 compiler 602's plugin
        // host prints a spurious "Internal Error: DecodingError" line on every expansion.
        .package(url: "https://github.com/swiftlang/swift-syntax", "602.0.0"..<"604.0.0"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.25.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
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
        .macro(
            name: "SQLiteDefaultsMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .target(
            name: "SQLiteDefaultsObservable",
            dependencies: ["SQLiteDefaults", "SQLiteDefaultsMacros"]
        ),
        // Child processes with their output read line by line: for `prefs demo` and the tests.
        .target(name: "ChildProcesses", dependencies: ["SanitizerMutex"]),
        // A pthread lock ThreadSanitizer can follow: the library's Mutex under Scripts/sanitize.sh,
        // and always the lock of ChildProcesses and the test helper.
        .target(name: "SanitizerMutex"),
        // The CLI's own text formats (JSON reader, export format, ISO 8601, value text), pure
        // and unit-tested; not a product.
        .target(
            name: "PrefsFormats",
            dependencies: ["SQLiteDefaults"]
        ),
        .executableTarget(
            name: "prefs",
            dependencies: [
                "SQLiteDefaults",
                "SQLiteDefaultsPostgres",
                "PrefsFormats",
                "ChildProcesses",
                "SQLiteDefaultsConsole",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "DefaultsTestHelper",
            dependencies: ["SQLiteDefaults", "SanitizerMutex"],
            path: "Tests/DefaultsTestHelper"
        ),
        // Test support shared by the test suites (not a product).
        .target(
            name: "DefaultsTestSupport",
            dependencies: ["SQLiteDefaults", "ChildProcesses"],
            path: "Tests/DefaultsTestSupport"
        ),
        .testTarget(
            name: "SQLiteDefaultsTests",
            dependencies: [
                "SQLiteDefaults", "CSQLiteDefaults", "ChildProcesses", "DefaultsTestSupport", "DefaultsTestHelper",
                "SanitizerMutex",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
            ]
        ),
        .executableTarget(
            name: "ReliabilityHelper",
            dependencies: ["SQLiteDefaults", "DefaultsTestSupport"],
            path: "Tests/ReliabilityHelper"
        ),
        .testTarget(
            name: "SQLiteDefaultsReliabilityTests",
            dependencies: [
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "DefaultsTestHelper",
                "ReliabilityHelper",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "prefsTests",
            dependencies: ["prefs", "SQLiteDefaults", "ChildProcesses"]
        ),
        .testTarget(
            name: "PrefsFormatsTests",
            dependencies: ["PrefsFormats", "SQLiteDefaults"]
        ),
        .testTarget(
            name: "SQLiteDefaultsMacrosTests",
            dependencies: [
                "SQLiteDefaultsMacros",
                .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsObservableTests",
            dependencies: ["SQLiteDefaultsObservable", "DefaultsTestSupport", "DefaultsTestHelper"]
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
                .product(name: "Configuration", package: "swift-configuration"),
            ],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        .testTarget(
            name: "SQLiteDefaultsConfigurationTests",
            dependencies: [
                "SQLiteDefaultsConfiguration",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "prefs",
                .product(name: "Configuration", package: "swift-configuration"),
                .product(name: "ConfigurationTesting", package: "swift-configuration"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]
        ),
        // A swift-service-lifecycle Service that closes a store on graceful shutdown.
        .target(
            name: "SQLiteDefaultsServiceLifecycle",
            dependencies: [
                "SQLiteDefaults",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsServiceLifecycleTests",
            dependencies: [
                "SQLiteDefaultsServiceLifecycle",
                "SQLiteDefaults",
                "DefaultsTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Fleet: a Service that carries a store's changes to and from a PostgreSQL table.
        .target(
            name: "SQLiteDefaultsPostgres",
            dependencies: [
                "SQLiteDefaults",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "_ConnectionPoolModule", package: "postgres-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
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
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "SQLiteDefaultsConsoleTests",
            dependencies: [
                "SQLiteDefaultsConsole",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "prefs",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
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
                "SQLiteDefaultsPostgres",
                "SQLiteDefaults",
                "ChildProcesses",
                "DefaultsTestSupport",
                "PostgresTestSupport",
                "prefs",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
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

// Scripts/sanitize.sh sets SQLITEDEFAULTS_WITHOUT_FLEET: its runs cover the engine and the
// reliability suites, and building postgres-nio and BoringSSL under each sanitizer would add
// about ten minutes to CI for code those suites never call. `prefs` then has no `sync`.
if ProcessInfo.processInfo.environment["SQLITEDEFAULTS_WITHOUT_FLEET"] != nil {
    let fleetTargets: Set<String> = ["SQLiteDefaultsPostgres", "PostgresTestSupport", "SQLiteDefaultsPostgresTests"]
    package.products.removeAll { $0.name == "SQLiteDefaultsPostgres" }
    package.targets.removeAll { fleetTargets.contains($0.name) }
    for target in package.targets where target.name == "prefs" {
        target.dependencies.removeAll { String(describing: $0).contains("Postgres") }
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("SQLITEDEFAULTS_WITHOUT_FLEET")]
    }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return location.hasSuffix("/postgres-nio") || location.hasSuffix("/swift-nio-ssl")
    }
}

// Scripts/sanitize.sh also sets SQLITEDEFAULTS_ENGINE_ONLY: the sanitizer runs check the engine
// and reliability suites, so their builds keep only what those suites need — no macros
// (swift-syntax), no swift-configuration, service-lifecycle or `prefs`.
if ProcessInfo.processInfo.environment["SQLITEDEFAULTS_ENGINE_ONLY"] != nil {
    let engineTargets: Set<String> = [
        "CSQLiteDefaults", "MigrationEmbedder", "EmbedMigrations", "SQLiteDefaults", "SanitizerMutex", "ChildProcesses",
        "DefaultsTestSupport", "DefaultsTestHelper", "ReliabilityHelper", "SQLiteDefaultsTests", "SQLiteDefaultsReliabilityTests",
    ]
    package.targets.removeAll { !engineTargets.contains($0.name) }
    package.products.removeAll { $0.name != "SQLiteDefaults" }
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind else { return false }
        return !(location.hasSuffix("/swift-log") || location.hasSuffix("/swift-metrics") || location.hasSuffix("/swift-property-based"))
    }
}

// The DocC plugin only for previewing documentation, so users never resolve it:
//   SQLITEDEFAULTS_GENERATE_DOCS=1 swift package --disable-sandbox preview-documentation --target SQLiteDefaults
// (SWIFT_PREVIEW_DOCS, as swift-configuration spells it, works too.) Scripts/docs.sh, which CI
// runs, needs no plugin: it converts the catalogs with the toolchain's docc from the symbol
// graphs of the build the tests made.
if ProcessInfo.processInfo.environment["SQLITEDEFAULTS_GENERATE_DOCS"] != nil
    || ProcessInfo.processInfo.environment["SWIFT_PREVIEW_DOCS"] != nil {
    package.dependencies.append(.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"))
}

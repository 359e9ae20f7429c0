// swift-tools-version: 6.2
// A runnable example: an HTTP server (Hummingbird) whose routes read feature flags and limits
// through swift-configuration's ConfigReader, from a SQLiteDefaults store that `prefs` changes
// while the server runs. Its own package, so users of SQLiteDefaults never resolve Hummingbird.
import PackageDescription
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// A path dependency's identity is its directory's name, which a clone may choose: compute it.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../..").standardizedFileURL
let rootIdentity = root.lastPathComponent.lowercased()

let package = Package(
    name: "FeatureFlags",
    // No `platforms`: like the library, built and tested on Linux only.
    dependencies: [
        // Every trait of the root, as CI builds it (`--enable-all-traits`), so the root's modules
        // compiled for its tests serve this example too (it builds in the root's scratch folder).
        // An app of its own names what it uses: `traits: ["Configuration", "ServiceLifecycle",
        // "Fleet", "Console", "Flags"]`.
        .package(path: "../..", traits: ["Observable", "Configuration", "ServiceLifecycle", "Fleet", "Console", "Prefs", "Vapor", "Flags"]),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "FeatureFlags",
            dependencies: [
                .product(name: "SQLiteDefaults", package: rootIdentity),
                .product(name: "SQLiteDefaultsConfiguration", package: rootIdentity),
                .product(name: "SQLiteDefaultsServiceLifecycle", package: rootIdentity),
                .product(name: "SQLiteDefaultsPostgres", package: rootIdentity),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "SQLiteDefaultsConsole", package: rootIdentity),
                .product(name: "SQLiteDefaultsFlags", package: rootIdentity),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Configuration", package: "swift-configuration"),
            ]
        ),
        .testTarget(
            name: "FeatureFlagsTests",
            dependencies: ["FeatureFlags"]
        ),
    ]
)

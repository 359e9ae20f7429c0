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
        .package(path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-configuration", from: "1.4.0"),
    ],
    targets: [
        .executableTarget(
            name: "FeatureFlags",
            dependencies: [
                .product(name: "SQLiteDefaults", package: rootIdentity),
                .product(name: "SQLiteDefaultsConfiguration", package: rootIdentity),
                .product(name: "SQLiteDefaultsServiceLifecycle", package: rootIdentity),
                .product(name: "SQLiteDefaultsConsole", package: rootIdentity),
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

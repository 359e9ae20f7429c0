// swift-tools-version: 6.2
// A runnable example: a Vapor app whose routes read feature flags and limits from a
// SQLiteDefaults store (`app.defaults`), with the console mounted behind the app's own token and
// `prefs` as a command of the app (`swift run App prefs list`). Its own package, so users of
// SQLiteDefaults never resolve Vapor.
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
    name: "FeatureFlagsVapor",
    // No `platforms`: like the library, built and tested on Linux only.
    dependencies: [
        // Every trait of the root, as Examples/FeatureFlags takes them and as CI builds the root
        // (`--enable-all-traits`): both examples build in the root's scratch folder, and the same
        // traits compile the root's modules (and NIO) once for all three packages. An app of
        // its own would write `.package(url: …, from: "1.0.0", traits: ["Vapor"])`.
        .package(path: "../..", traits: ["Observable", "Configuration", "ServiceLifecycle", "Fleet", "Console", "Prefs", "Vapor", "Flags"]),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
    ],
    targets: [
        .executableTarget(
            name: "App",
            dependencies: [
                .product(name: "SQLiteDefaults", package: rootIdentity),
                .product(name: "SQLiteDefaultsVapor", package: rootIdentity),
                .product(name: "SQLiteDefaultsConsole", package: rootIdentity),
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "App",
                .product(name: "SQLiteDefaults", package: rootIdentity),
                .product(name: "VaporTesting", package: "vapor"),
            ]
        ),
    ]
)

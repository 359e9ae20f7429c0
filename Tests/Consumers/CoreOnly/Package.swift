// swift-tools-version: 6.2
import PackageDescription

// The store alone: no trait, so nothing beyond swift-log and swift-metrics is resolved.
let package = Package(
    name: "CoreOnly",
    dependencies: [
        .package(path: "../SQLiteDefaults", traits: []),
    ],
    targets: [
        .executableTarget(
            name: "CoreOnly",
            dependencies: [.product(name: "SQLiteDefaults", package: "SQLiteDefaults")]
        ),
    ]
)

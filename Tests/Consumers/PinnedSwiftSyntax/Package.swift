// swift-tools-version: 6.2
import PackageDescription

// An app whose other macro packages hold swift-syntax at 600.0.1 and which uses
// @ObservableDefaults: it must resolve and build.
let package = Package(
    name: "PinnedSwiftSyntax",
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "600.0.1"),
        .package(path: "../SQLiteDefaults", traits: ["Observable"]),
    ],
    targets: [
        .executableTarget(
            name: "PinnedSwiftSyntax",
            dependencies: [
                .product(name: "SQLiteDefaultsObservable", package: "SQLiteDefaults"),
                .product(name: "SwiftSyntax", package: "swift-syntax"),
            ]
        ),
    ]
)

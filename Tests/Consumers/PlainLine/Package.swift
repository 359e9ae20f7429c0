// swift-tools-version: 6.2
import PackageDescription

// A plain dependency line, as a user copies it: no `traits:`, so the package's default traits.
// Those cost no heavy package: no web framework, no PostgreSQL client, no swift-syntax is
// resolved (Scripts/consumers.sh checks the Package.resolved this produces).
let package = Package(
    name: "PlainLine",
    dependencies: [
        .package(path: "../SQLiteDefaults"),
    ],
    targets: [
        .executableTarget(
            name: "PlainLine",
            dependencies: [.product(name: "SQLiteDefaults", package: "SQLiteDefaults")]
        ),
    ]
)

import Foundation
import PackagePlugin

/// Turns the package's `Migrations/*.sql` into Swift source compiled into the target,
/// so the schema's single source of truth ships inside the binary.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let directory = context.package.directoryURL.appending(path: "Migrations").resolvingSymlinksInPath()
        let files = try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            // `schema.sql` is the generated picture of a new file (Scripts/schema.sh), not a
            // migration: only `NNNN_description.sql` files are.
            .filter { $0.pathExtension == "sql" && $0.lastPathComponent != "schema.sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations from Migrations/",
                executable: try context.tool(named: "MigrationEmbedder").url,
                arguments: [output.path()] + files.map { $0.path() },
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}

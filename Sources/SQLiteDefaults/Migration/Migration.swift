/// One schema step from `Migrations/NNNN_description.sql`, embedded at build time by the
/// `EmbedMigrations` plugin (see `Migration.embedded`, generated).
struct Migration: Sendable, Equatable {
    /// The `NNNN` of the file name; after it runs, `PRAGMA user_version` is this number.
    let version: Int
    /// The file name's description part.
    let name: String
    /// The file's SQL, verbatim.
    let sql: String

    /// The schema version this build of the library creates and understands.
    static var latestVersion: Int { embedded.last?.version ?? 0 }
}

#if Fleet
import SQLiteDefaults

/// One key as the fleet's table holds it: its value (`nil`: deleted), the version of the
/// push that wrote it, and the machine that pushed it (`HOST:PATH`; recorded in the local
/// history as the writer). Versions grow in PostgreSQL's commit order (see ``FleetTable``).
struct FleetRow: Sendable, Equatable {
    let key: String
    let value: SQLiteValue?
    let version: Int64
    var origin: String? = nil
}

/// A local row to push: the key and its value in this file now (`nil`: deleted).
struct PendingRow: Sendable, Equatable {
    let key: String
    let value: SQLiteValue?
}
#endif

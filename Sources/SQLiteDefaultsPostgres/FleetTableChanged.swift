#if Fleet
/// The fleet's table is no longer the one a session is in step with, as a fetch found (see
/// ``FleetNews``): the session ends, and the next one joins the table as a restart would — a
/// table created again as a new member, a table gone back in time by a rejoin — and says so.
enum FleetTableChanged: Error, Equatable {
    /// Another table of the same name: dropped and created again, or another server.
    case replaced
    /// The same table, whose newest version is below what this machine applied: restored from
    /// a backup, or a failover to a replica that lagged behind.
    case wentBack
}
#endif

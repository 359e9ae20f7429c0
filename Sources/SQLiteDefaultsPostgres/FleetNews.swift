#if Fleet
/// What a fetch finds in the fleet's table: the rows after a position, and what tells whether
/// the table is still the one the machine is in step with.
///
/// A table dropped and created again (by an operator, or by the first machine to reconnect
/// after the drop) has another identity and numbers its versions from 1 again; a table restored
/// from a backup keeps its identity but its newest version falls below what machines applied.
/// A machine whose connection never dropped would otherwise hear nothing of either: it would
/// stay "in step" and skip every new row as already seen.
struct FleetNews: Sendable {
    /// The table's identity, as ``FleetTable/prepare(on:)`` returns it.
    let identity: String
    /// The largest version in the table (0 when it is empty).
    let newest: Int64
    /// The rows after the position asked for, in version order.
    let rows: [FleetRow]
}
#endif

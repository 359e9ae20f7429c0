#if Fleet
import SQLiteDefaults

/// The fleet's own failure codes. They live here, not in the core: a store that never syncs
/// knows nothing of PostgreSQL. They match like every other code:
///
/// ```swift
/// do {
///     try await sync.run()
/// } catch DefaultsError.Code.remoteRejected {
///     print("check the credentials")
/// }
/// ```
extension DefaultsError.Code {
    /// The fleet's PostgreSQL cannot be reached now: refused, timed out, or the connection
    /// broke. Transient: a sync retries.
    public static let unreachable = DefaultsError.Code(rawValue: "unreachable")
    /// PostgreSQL answered but refused the work: bad credentials, a database that does not
    /// exist, a missing schema, no permission. Retrying the same settings will not help.
    public static let remoteRejected = DefaultsError.Code(rawValue: "remoteRejected")
    /// The fleet's table exists but has another shape than the one this library creates;
    /// nothing was written to it.
    public static let incompatibleTable = DefaultsError.Code(rawValue: "incompatibleTable")

    /// Every code of the fleet.
    public static let fleetCases: [DefaultsError.Code] = [.unreachable, .remoteRejected, .incompatibleTable]
}
#endif

import Foundation

/// Who wrote a change: this library in some process, a SQL client outside it, or the fleet.
///
/// ```swift
/// for entry in try store.history(for: .timeout) {
///     print(entry.sequence, entry.value ?? "removed", entry.writer.kind, entry.writer.program ?? "?")
/// }
/// ```
///
/// Fields are `nil` where the writer is not known: a SQL client such as the `sqlite3` shell
/// tells the database nothing about itself, so its changes are `.sql` with every field `nil`.
public struct DefaultsWriter: Sendable, Hashable {
    /// What kind of writer made a change.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A `DefaultsStore` of this library (any process, `prefs` included).
        case library
        /// A SQL client outside this library, such as the `sqlite3` shell.
        case sql
        /// The fleet sync, applying a row another machine pushed.
        case fleet
    }

    /// What kind of writer it was.
    public let kind: Kind
    /// The writing process's id (`.library`).
    public let pid: Int32?
    /// The writing program's name (`.library`).
    public let program: String?
    /// The user the writing process ran as (`.library`).
    public let user: String?
    /// The host name of the machine: where the writing process ran (`.library`), or the machine
    /// the row came from (`.fleet`).
    public let host: String?
    /// The person or service the change was made for, as the writing program named it: a
    /// console's token name or signed-in user, `prefs`'s `PREFS_ACTOR` or login name, or what
    /// the app passed to ``DefaultsStore/transaction(actor:reason:_:)-4nyk6``. `nil` when none was
    /// named, and always for `.sql` and `.fleet`.
    public let actor: String?
    /// Why the change was made, as its writer said (free text; may hold newlines); `nil` when
    /// no reason was given.
    public let reason: String?

    /// Creates a writer, for example to feed code under test that takes one.
    /// - Parameters:
    ///   - kind: what kind of writer it was.
    ///   - pid: the process id, if known.
    ///   - program: the program name, if known.
    ///   - user: the user name, if known.
    ///   - host: the host name, if known.
    ///   - actor: the person or service the change was made for, if named.
    ///   - reason: why it was made, if said.
    public init(kind: Kind, pid: Int32? = nil, program: String? = nil, user: String? = nil, host: String? = nil,
                actor: String? = nil, reason: String? = nil) {
        self.kind = kind
        self.pid = pid
        self.program = program
        self.user = user
        self.host = host
        self.actor = actor
        self.reason = reason
    }

    /// This writer with `actor` and `reason` (a nil keeps what it had).
    func attributed(actor: String?, reason: String?) -> DefaultsWriter {
        DefaultsWriter(kind: kind, pid: pid, program: program, user: user, host: host,
                       actor: actor ?? self.actor, reason: reason ?? self.reason)
    }

    /// This process, as its writes are recorded: its id, program name, user and host.
    public static var current: DefaultsWriter { processWriter }

    private static let processWriter = DefaultsWriter(
        kind: .library, pid: getpid(), program: ProcessInfo.processInfo.processName,
        user: currentUserName(), host: currentHostName())

    /// The effective user's name from the password database; the numeric id when it has none.
    private static func currentUserName() -> String {
        let uid = geteuid()
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(uid, &record, &buffer, buffer.count, &result) == 0, let found = result, let name = found.pointee.pw_name {
            return String(cString: name)
        }
        return String(uid)
    }

    /// gethostname(2): Foundation's `hostName` may ask the resolver, which can take seconds.
    private static func currentHostName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return nil }
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// A row applied by the fleet, pushed by `origin` (`HOST:PATH`, as the fleet names a
    /// machine's file): the machine is the part before the first colon.
    package static func fleet(origin: String?) -> DefaultsWriter {
        let host = origin.map { origin in origin.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? origin }
        return DefaultsWriter(kind: .fleet, host: host.flatMap { $0.isEmpty ? nil : $0 })
    }
}

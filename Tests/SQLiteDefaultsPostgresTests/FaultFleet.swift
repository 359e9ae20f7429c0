#if Fleet && Prefs
import ChildProcesses
import DefaultsTestSupport
import Foundation
import PostgresTestSupport
import SQLiteDefaults
import Synchronization
import Testing

/// A fleet of `prefs sync` sidecars, each in a network namespace of a ``NetworkLab``, each
/// on its own SQLite file, which the test writes through a store of its own (the file is the
/// machine's; only its network is apart). Writes are recorded when `set` returns: those are
/// the acknowledged local writes that must never be lost.
final class FaultFleet: @unchecked Sendable {
    // @unchecked: `directory` (not Sendable) is a `let` whose path is only read; it is kept to
    // delete the folder when the fleet goes. Everything else is Sendable.
    let lab: NetworkLab
    let server: PostgresServer
    let directory: TemporaryDirectory
    let stores: [DefaultsStore]
    private let sidecars: Mutex<[ChildProcess?]>
    private let errors: [Collected<String>]
    /// Per machine, its own keys' last acknowledged values.
    private let acknowledged: Mutex<[[String: Int64]]>

    init(machines: Int, server: PostgresServer) throws {
        self.server = server
        lab = try NetworkLab(machines: machines, postgresPort: server.port)
        let directory = try TemporaryDirectory()
        self.directory = directory
        stores = try (0..<machines).map { try DefaultsStore(path: "\(directory.path)/m\($0).sqlite") }
        sidecars = Mutex(Array(repeating: nil, count: machines))
        errors = (0..<machines).map { _ in Collected<String>() }
        acknowledged = Mutex(Array(repeating: [:], count: machines))
    }

    var count: Int { stores.count }

    func path(_ index: Int) -> String { "\(directory.path)/m\(index).sqlite" }

    /// Starts machine `index`'s sidecar inside its namespace; waits for `ready` when asked.
    @discardableResult
    func start(_ index: Int, waitReady: Bool = true) async throws -> Bool {
        let lines = errors[index]
        let (executable, arguments) = lab.inside(index, [builtExecutable("prefs"), "--db", path(index), "sync",
                                                         "--postgres", lab.postgresURL, "--ready"])
        let process = try ChildProcess(executable, arguments,
                                       environment: ["PGPASSWORD": "", "PGPASSFILE": "/nonexistent/pgpass"],
                                       onErrorLine: { lines.append("\(ContinuousClock.now) \($0)") })
        sidecars.withLock { $0[index] = process }
        guard waitReady else { return true }
        return await lines.waitAsync(timeout: .seconds(60)) { $0.contains { $0.hasSuffix("ready") } }
    }

    /// SIGKILLs machine `index`'s sidecar and waits for it to be gone.
    func kill(_ index: Int) async {
        guard let process = sidecars.withLock({ $0[index] }) else { return }
        process.send(SIGKILL)
        _ = await process.wait(timeout: .seconds(30))
        sidecars.withLock { $0[index] = nil }
    }

    /// Stops every sidecar (SIGTERM; each must exit 0) and removes the lab.
    func stop() async {
        let all = sidecars.withLock { $0 }
        for (index, process) in all.enumerated() {
            guard let process else { continue }
            process.send(SIGTERM)
            let outcome = await process.wait(timeout: .seconds(30))
            if outcome?.succeeded != true {
                Issue.record("machine \(index)'s sidecar did not stop cleanly: \(String(describing: outcome)); stderr: \(errors[index].all.suffix(20))")
            }
        }
        await lab.remove()
        // Before the folder goes: a store whose file is deleted under it warns.
        for store in stores { try? store.close() }
    }

    /// One acknowledged write of machine `index`: an own key (`m<index>.k<slot>`), and a key
    /// every machine writes (`shared.k<slot>`).
    func write(_ index: Int, _ sequence: Int, ownKeys: Int = 20, sharedKeys: Int = 5) throws {
        let key = "m\(index).k\(sequence % ownKeys)"
        let value = Int64(sequence)
        try stores[index].set(.integer(value), for: .raw(key))
        acknowledged.withLock { $0[index][key] = value }
        try stores[index].set(.integer(Int64(index * 1_000_000 + sequence)), for: .raw("shared.k\(sequence % sharedKeys)"))
    }

    /// Writes from every machine for `duration`, each about every `every`.
    func writeSteadily(for duration: Duration, every: Duration = .milliseconds(50), startingAt start: Int = 0) async throws -> Int {
        let end = ContinuousClock.now + duration
        var sequence = start
        while ContinuousClock.now < end {
            for index in 0..<count { try write(index, sequence) }
            sequence += 1
            try await Task.sleep(for: every)  // pacing: a steady workload, not a proof of absence
        }
        return sequence
    }

    /// PostgreSQL's table: key → integer value (deleted rows left out).
    func table() async throws -> [String: Int64] {
        let text = try await server.psql("SELECT key || '=' || integer_value FROM defaults_fleet WHERE storage_class = 'integer' ORDER BY key")
        var rows: [String: Int64] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.lastIndex(of: "="), let value = Int64(line[line.index(after: equals)...]) else { continue }
            rows[String(line[..<equals])] = value
        }
        return rows
    }

    /// Machine `index`'s file: key → integer value.
    func file(_ index: Int) throws -> [String: Int64] {
        var rows: [String: Int64] = [:]
        for (key, value) in try stores[index].entries().map({ ($0.key, $0.value) }) {
            if case .integer(let number) = value { rows[key] = number }
        }
        return rows
    }

    /// Whether every file equals PostgreSQL's table and every acknowledged write stands in it.
    func converged() async throws -> Bool {
        let table = try await table()
        let lost = acknowledged.withLock { all in all.flatMap { $0.filter { table[$0.key] != $0.value } } }
        guard lost.isEmpty else { return false }
        for index in 0..<count where try file(index) != table { return false }
        return true
    }

    /// Waits for ``converged()``; returns the seconds it took, or nil (and records why) after `timeout`.
    func convergence(timeout: Duration = .seconds(120), sourceLocation: SourceLocation = #_sourceLocation) async -> Double? {
        let start = ContinuousClock.now
        if await waitUntilAwaiting(timeout: timeout, { try await converged() }) {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let table = (try? await table()) ?? [:]
        let lost = acknowledged.withLock { all in all.flatMap { $0.filter { table[$0.key] != $0.value } } }
        var differences: [String] = []
        for index in 0..<count {
            let file = (try? file(index)) ?? [:]
            let keys = Set(file.keys).union(table.keys).filter { file[$0] != table[$0] }.sorted().prefix(5)
            differences.append("machine \(index): \(keys.map { "\($0) file \(String(describing: file[$0])) table \(String(describing: table[$0]))" })")
        }
        Issue.record("no convergence within \(timeout): acknowledged writes not in PostgreSQL: \(lost.prefix(5)); \(differences); stderr: \(errors.map { $0.all.suffix(5) })",
                     sourceLocation: sourceLocation)
        return nil
    }
}
#endif

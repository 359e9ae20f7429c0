#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import PostgresTestSupport

/// Machines in network namespaces of their own, on a bridge, with PostgreSQL on the host side:
/// each machine is `ip netns` + a veth pair whose other end is on the bridge; faults are
/// nftables rules inside a machine's namespace (this kernel has no `netem`): a random share of
/// packets dropped, or all of them (a partition). PostgreSQL listens on loopback only; a
/// forwarder (``DelayingProxy``, delay zero unless told) on the bridge's address leads to it.
///
/// Every name carries this process's id (`sdf<pid>…`), so labs of parallel runs never meet,
/// and a lab whose process died is swept by the next one. ``remove()`` deletes everything,
/// and runs from `deinit` too, so a failed test leaves nothing behind.
final class NetworkLab: @unchecked Sendable {
    // @unchecked: every stored property is a `let` set in init, except `removed`, which is a
    // Mutex-free flag only read and written under `lock` (an NSLock).
    enum Fault: Equatable {
        case none
        /// Drop this share of packets, in percent, both ways.
        case loss(Int)
        /// Drop every packet both ways: the machine is cut off.
        case partition
    }

    let prefix: String
    let subnet: String
    let namespaces: [String]
    let bridge: String
    /// The forwarder on the bridge address, to PostgreSQL on loopback.
    let forwarder: DelayingProxy
    private let lock = NSLock()
    private var removed = false

    /// Why the lab cannot be built here, or nil when it can: root, `ip` and `nft`.
    static func unavailableReason() -> String? {
        if getuid() != 0 { return "network namespaces need root (ip netns); running as uid \(getuid())" }
        for tool in ["ip", "nft"] where Self.find(tool) == nil {
            return "the \(tool) command is missing (apt-get install iproute2 nftables)"
        }
        return nil
    }

    /// Builds `machines` namespaces on a new bridge, with a forwarder to `postgresPort`.
    /// - Throws: `LabError` with the failing command and its output.
    init(machines: Int, postgresPort: Int) throws {
        Self.sweepStale()
        let prefix = "sdf\(getpid())x\(Int.random(in: 100...999))"
        self.prefix = prefix
        let bridge = prefix + "br"
        self.bridge = bridge
        let subnet = try Self.freeSubnet()
        self.subnet = subnet
        let namespaces = (0..<machines).map { "\(prefix)m\($0)" }
        self.namespaces = namespaces
        var built = false
        defer { if !built { Self.teardown(prefix: prefix, bridge: bridge, namespaces: namespaces) } }
        try Self.run(["ip", "link", "add", bridge, "type", "bridge"])
        try Self.run(["ip", "addr", "add", "\(subnet).1/24", "dev", bridge])
        try Self.run(["ip", "link", "set", bridge, "up"])
        for (index, namespace) in namespaces.enumerated() {
            let host = "\(prefix)h\(index)", inside = "\(prefix)n\(index)"
            try Self.run(["ip", "netns", "add", namespace])
            try Self.run(["ip", "link", "add", host, "type", "veth", "peer", "name", inside])
            try Self.run(["ip", "link", "set", inside, "netns", namespace])
            try Self.run(["ip", "link", "set", host, "master", bridge])
            try Self.run(["ip", "link", "set", host, "up"])
            try Self.run(["ip", "netns", "exec", namespace, "ip", "link", "set", "lo", "up"])
            try Self.run(["ip", "netns", "exec", namespace, "ip", "addr", "add", "\(subnet).\(10 + index)/24", "dev", inside])
            try Self.run(["ip", "netns", "exec", namespace, "ip", "link", "set", inside, "up"])
            try Self.run(["ip", "netns", "exec", namespace, "nft", """
                add table inet fault
                add chain inet fault input { type filter hook input priority 0; policy accept; }
                add chain inet fault output { type filter hook output priority 0; policy accept; }
                """])
        }
        forwarder = try DelayingProxy(to: postgresPort, host: "\(subnet).1")
        built = true
    }

    deinit { remove() }

    /// The URL machines use to reach PostgreSQL (through the forwarder on the bridge).
    var postgresURL: String { "postgres://postgres@\(subnet).1:\(forwarder.port)/postgres?sslmode=disable" }

    /// Sets machine `index`'s fault (replacing the one it had).
    func set(_ fault: Fault, on index: Int) throws {
        let namespace = namespaces[index]
        let device = "\(prefix)n\(index)"
        var rules = "flush chain inet fault input\nflush chain inet fault output\n"
        switch fault {
        case .none: break
        case .loss(let percent):
            rules += "add rule inet fault input iifname \(device) numgen random mod 100 < \(percent) drop\n"
            rules += "add rule inet fault output oifname \(device) numgen random mod 100 < \(percent) drop\n"
        case .partition:
            rules += "add rule inet fault input iifname \(device) drop\nadd rule inet fault output oifname \(device) drop\n"
        }
        try Self.run(["ip", "netns", "exec", namespace, "nft", rules])
    }

    /// Sets one fault on every machine.
    func setAll(_ fault: Fault) throws {
        for index in namespaces.indices { try set(fault, on: index) }
    }

    /// ``set(_:on:)`` on a thread of its own: `ip netns exec … nft` is waited for there.
    func set(_ fault: Fault, on index: Int) async throws {
        try await onOwnThread { try self.set(fault, on: index) as Void }
    }

    /// ``setAll(_:)`` on a thread of its own.
    func setAll(_ fault: Fault) async throws {
        try await onOwnThread { try self.setAll(fault) as Void }
    }

    /// `command` run inside machine `index`'s namespace: the arguments for a child process.
    func inside(_ index: Int, _ command: [String]) -> (String, [String]) {
        (Self.find("ip") ?? "/usr/sbin/ip", ["netns", "exec", namespaces[index]] + command)
    }

    /// Deletes the namespaces, the bridge and the forwarder; idempotent.
    func remove() {
        let first = lock.withLock { () -> Bool in
            defer { removed = true }
            return !removed
        }
        guard first else { return }
        forwarder.stop()
        Self.teardown(prefix: prefix, bridge: bridge, namespaces: namespaces)
    }

    /// ``remove()`` on a thread of its own (it waits for the `ip` commands).
    func remove() async {
        try? await onOwnThread { self.remove() as Void }
    }

    private static func teardown(prefix: String, bridge: String, namespaces: [String]) {
        // Deleting the host end of a veth deletes its peer too. The namespace's own teardown
        // would, but only once the kernel lets it go (sockets of a killed process linger).
        for index in namespaces.indices { _ = try? run(["ip", "link", "delete", "\(prefix)h\(index)"]) }
        for namespace in namespaces { _ = try? run(["ip", "netns", "delete", namespace]) }
        _ = try? run(["ip", "link", "delete", bridge])
    }

    /// Deletes what labs of processes that no longer run left behind (killed mid-test).
    private static func sweepStale() {
        guard let listing = try? run(["ip", "netns", "list"]) else { return }
        var stale: Set<String> = []
        for line in listing.split(separator: "\n") {
            let name = String(line.split(separator: " ").first ?? "")
            guard name.hasPrefix("sdf"), let x = name.firstIndex(of: "x"),
                  let pid = Int32(name[name.index(name.startIndex, offsetBy: 3)..<x]) else { continue }
            if kill(pid, 0) != 0, errno == ESRCH {
                _ = try? run(["ip", "netns", "delete", name])
                if let m = name.lastIndex(of: "m") { stale.insert(String(name[..<m])) }
            }
        }
        // Host ends of veths and bridges of dead runs, whether or not their namespaces remain.
        let links = (try? run(["ip", "-o", "link", "show"])) ?? ""
        for line in links.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count > 1 else { continue }
            let name = String(fields[1].split(separator: "@").first ?? "").trimmingCharacters(in: CharacterSet(charactersIn: ":"))
            guard name.hasPrefix("sdf"), let x = name.firstIndex(of: "x"),
                  let pid = Int32(name[name.index(name.startIndex, offsetBy: 3)..<x]), kill(pid, 0) != 0, errno == ESRCH else { continue }
            _ = try? run(["ip", "link", "delete", name])
        }
        for prefix in stale { _ = try? run(["ip", "link", "delete", prefix + "br"]) }
    }

    /// A 10.231.N.0/24 no interface of this namespace uses yet (labs of other runs included).
    private static func freeSubnet() throws -> String {
        let addresses = (try? run(["ip", "-4", "-o", "addr", "show"])) ?? ""
        for _ in 0..<200 {
            let candidate = "10.231.\(Int.random(in: 1...254))"
            if !addresses.contains(candidate + ".") { return candidate }
        }
        throw LabError(message: "no free 10.231.N.0/24 subnet for the network lab")
    }

    struct LabError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    static func find(_ tool: String) -> String? {
        for directory in ["/usr/sbin", "/sbin", "/usr/bin", "/bin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(tool)") {
            return "\(directory)/\(tool)"
        }
        return nil
    }

    /// Runs a command to its end; returns its standard output. It blocks: it runs on threads of
    /// their own (the async overloads above, and `onOwnThread` for the lab's construction).
    /// - Throws: ``LabError`` with the command and its output when it fails.
    @discardableResult
    static func run(_ command: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: find(command[0]) ?? command[0])
        process.arguments = Array(command.dropFirst())
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard process.terminationStatus == 0 else {
            throw LabError(message: "\(command.joined(separator: " ")) failed (\(process.terminationStatus)): \(text)")
        }
        return text
    }
}
#endif

import Foundation
import Synchronization

/// A TCP proxy that delays every byte by a set time (± jitter) each way, keeping each
/// direction's order: this kernel has no `netem`, and a long path is what the fleet's round
/// trips are measured through. With no delay it is a plain forwarder, which the network
/// namespace harness uses to reach a server that listens on loopback only.
///
/// ```swift
/// let proxy = try DelayingProxy(to: server.port, delay: .milliseconds(50), jitter: .milliseconds(15))
/// defer { proxy.stop() }
/// // connect to 127.0.0.1:proxy.port
/// ```
///
/// Each accepted connection gets four threads (a reader and a writer per direction). A chunk
/// read at time t is written at max(t + delay ± jitter, the previous chunk's time), so jitter
/// never reorders bytes, as on a real TCP path.
public final class DelayingProxy: Sendable {
    /// The port the proxy listens on.
    public let port: Int
    /// The address it listens on (`127.0.0.1` unless told).
    public let host: String
    private let listener: Int32
    private let targetPort: Int
    fileprivate let settings: Mutex<(delay: Duration, jitter: Duration)>
    private let open = Mutex<(stopped: Bool, sockets: Set<Int32>, accepted: Int, listenerClosed: Bool)>((false, [], 0, false))

    /// Starts listening on `host` (an IPv4 address of this namespace) and forwarding to
    /// 127.0.0.1:`targetPort`.
    /// - Throws: ``PostgresServerError`` when the socket cannot be made or bound.
    public init(to targetPort: Int, host: String = "127.0.0.1", delay: Duration = .zero, jitter: Duration = .zero) throws {
        self.targetPort = targetPort
        self.host = host
        settings = Mutex((delay, jitter))
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Self.failure("socket") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = try Self.address(host, port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else {
            close(descriptor)
            throw Self.failure("bind/listen on \(host)")
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = descriptor
        Thread { [self] in acceptLoop() }.start()
    }

    /// Changes the delay for what is read from now on.
    public func setDelay(_ delay: Duration, jitter: Duration = .zero) {
        settings.withLock { $0 = (delay, jitter) }
    }

    /// How many connections were accepted so far.
    public var acceptedConnections: Int { open.withLock { $0.accepted } }

    /// Closes the listener and every connection (both sides).
    ///
    /// Only shuts descriptors down: each is closed by the thread that last uses it (the listener
    /// by the accept loop, a connection's two by its last thread), under the lock that `stop`
    /// holds. Closing here raced with those threads: a descriptor number closed and then reused by
    /// another part of the test process (a SQLite file, a PostgreSQL connection) was accepted on
    /// or shut down.
    public func stop() {
        open.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            // Wakes the accept loop (accept fails with EINVAL), which then closes the listener.
            if !state.listenerClosed { shutdown(listener, Int32(SHUT_RDWR)) }
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    /// Cuts every connection open now (both sides see a reset or an end), keeping the listener.
    public func cutConnections() {
        open.withLock { state in
            for socket in state.sockets { shutdown(socket, Int32(SHUT_RDWR)) }
        }
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                closeListener()
                return
            }
            let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard server >= 0, var target = try? Self.address("127.0.0.1", port: targetPort) else {
                close(client)
                continue
            }
            let connected = withUnsafePointer(to: &target) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            var one: Int32 = 1
            setsockopt(client, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            setsockopt(server, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let admitted = open.withLock { state -> Bool in
                guard !state.stopped, connected == 0 else { return false }
                state.sockets.formUnion([client, server])
                state.accepted += 1
                return true
            }
            guard admitted else {
                close(client)
                close(server)
                if open.withLock({ $0.stopped }) {
                    closeListener()
                    return
                }
                continue
            }
            let ends = Ends()
            for (from, to) in [(client, server), (server, client)] {
                let queue = Pipe(proxy: self)
                Thread { [self] in read(from, into: queue); queue.finish(); finished(ends, client, server) }.start()
                Thread { [self] in
                    write(queue, to: to)
                    // One direction ended: the connection is over both ways.
                    shutdown(from, Int32(SHUT_RDWR))
                    shutdown(to, Int32(SHUT_RDWR))
                    finished(ends, client, server)
                }.start()
            }
        }
    }

    /// Closes the listener once, under the lock, so that `stop()` never shuts down its number
    /// after it was closed (and perhaps reused).
    private func closeListener() {
        open.withLock { state in
            guard !state.listenerClosed else { return }
            state.listenerClosed = true
            close(listener)
        }
    }

    /// Counts the four threads of a connection; the last one closes both sockets.
    private final class Ends: Sendable {
        private let count = Mutex(0)
        func one() -> Bool { count.withLock { $0 += 1; return $0 == 4 } }
    }

    private func finished(_ ends: Ends, _ client: Int32, _ server: Int32) {
        guard ends.one() else { return }
        open.withLock { state in
            state.sockets.remove(client)
            state.sockets.remove(server)
            close(client)
            close(server)
        }
    }

    private func read(_ socket: Int32, into queue: Pipe) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            queue.put(Array(buffer[0..<count]))
        }
    }

    private func write(_ queue: Pipe, to socket: Int32) {
        while let (due, bytes) = queue.next() {
            let wait = due - ContinuousClock.now
            if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
            var sent = 0
            while sent < bytes.count {
                let result = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if result < 0, errno == EINTR { continue }
                guard result > 0 else { return }
                sent += result
            }
        }
    }

    /// One direction's chunks with the time each is due.
    private final class Pipe: Sendable {
        private let proxy: DelayingProxy
        private let condition = NSCondition()
        // Guarded by `condition` (NSCondition is a lock): the queue, the last due time, the end.
        private nonisolated(unsafe) var chunks: [(ContinuousClock.Instant, [UInt8])] = []
        private nonisolated(unsafe) var lastDue = ContinuousClock.now
        private nonisolated(unsafe) var ended = false

        init(proxy: DelayingProxy) {
            self.proxy = proxy
        }

        func put(_ bytes: [UInt8]) {
            let (delay, jitter) = proxy.settings.withLock { $0 }
            var wait = delay
            if jitter > .zero {
                let span = Double(jitter.components.seconds) + Double(jitter.components.attoseconds) / 1e18
                wait += .seconds(Double.random(in: -span...span))
            }
            condition.lock()
            let due = max(ContinuousClock.now + wait, lastDue)
            lastDue = due
            chunks.append((due, bytes))
            condition.signal()
            condition.unlock()
        }

        func finish() {
            condition.lock()
            ended = true
            condition.signal()
            condition.unlock()
        }

        func next() -> (ContinuousClock.Instant, [UInt8])? {
            condition.lock()
            defer { condition.unlock() }
            while chunks.isEmpty {
                if ended { return nil }
                condition.wait()
            }
            return chunks.removeFirst()
        }
    }

    private static func address(_ host: String, port: Int) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw PostgresServerError("not an IPv4 address: \(host)")
        }
        return address
    }

    private static func failure(_ call: String) -> PostgresServerError {
        PostgresServerError("the delaying proxy cannot start: \(call) failed: \(String(cString: strerror(errno)))")
    }
}

import Foundation
import Synchronization

/// Free TCP ports on 127.0.0.1, for servers started in this process.
enum LoopbackPort {
    /// Every port handed out in this process: two servers started at the same moment never get
    /// the same one (another process can still take a port before the server binds it; the
    /// caller retries then).
    private static let handedOut = Mutex<Set<Int>>([])

    /// A port that was free a moment ago: bound as port 0 on 127.0.0.1, read back, closed.
    /// - Throws: `PostgresServerError` when no socket can be created or bound.
    static func free() throws -> Int {
        for _ in 0..<50 {
            let port = try bindAndRelease()
            if handedOut.withLock({ $0.insert(port).inserted }) { return port }
        }
        throw PostgresServerError("no free TCP port on 127.0.0.1 that this process has not used already")
    }

    private static func bindAndRelease() throws -> Int {
        #if canImport(Glibc)
        let stream = Int32(SOCK_STREAM.rawValue)
        #else
        let stream = SOCK_STREAM
        #endif
        let socketDescriptor = socket(AF_INET, stream, 0)
        guard socketDescriptor >= 0 else { throw failure("socket") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian  // 127.0.0.1
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, length) }
        }
        guard bound == 0 else { throw failure("bind") }
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socketDescriptor, $0, &length) }
        }
        guard named == 0 else { throw failure("getsockname") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    private static func failure(_ call: String) -> PostgresServerError {
        PostgresServerError("cannot find a free port: \(call) on 127.0.0.1 failed: \(String(cString: strerror(errno)))")
    }
}

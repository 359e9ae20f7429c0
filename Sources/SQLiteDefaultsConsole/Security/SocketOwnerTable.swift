#if Console
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The TCP sockets of this machine and the user that owns each, as Linux lists them in
/// `/proc/net/tcp` and `/proc/net/tcp6`: how a loopback console learns which user is at the
/// other end of a connection (that end is a socket on this machine too).
///
/// A line of those files reads `0: 0100007F:1F90 0100007F:D431 01 … 1000 …`: the local and
/// remote address and port, the state (`01` is ESTABLISHED) and, in the 8th column, the uid.
/// An address is written as 32-bit words, each as the kernel holds it in memory printed as a
/// hex number: on a little-endian machine 127.0.0.1 is `0100007F`, `::1` is
/// `00000000000000000000000001000000`. Ports are plain hex numbers.
struct SocketOwnerTable: Equatable {
    /// One end of a connection: a 16-byte IPv6 address (an IPv4 one in its v4-mapped form,
    /// `::ffff:a.b.c.d`, so that either family's listing matches it) and a port.
    struct Endpoint: Hashable {
        let address: [UInt8]
        let port: UInt16

        init(address: [UInt8], port: UInt16) {
            self.address = address.count == 4 ? Array(repeating: 0, count: 10) + [0xFF, 0xFF] + address : address
            self.port = port
        }

        /// An endpoint from an address literal (`127.0.0.1`, `::1`, `::ffff:127.0.0.1`) and a port.
        init?(ip: String, port: Int) {
            guard let port = UInt16(exactly: port) else { return nil }
            let literal = ip.split(separator: "%", maxSplits: 1).first.map(String.init) ?? ip
            var v4 = in_addr(), v6 = in6_addr()
            if inet_pton(AF_INET, literal, &v4) == 1 {
                self.init(address: withUnsafeBytes(of: v4) { Array($0) }, port: port)
            } else if inet_pton(AF_INET6, literal, &v6) == 1 {
                self.init(address: withUnsafeBytes(of: v6) { Array($0) }, port: port)
            } else {
                return nil
            }
        }

        /// An endpoint as `/proc/net/tcp{,6}` writes it: `0100007F:1F90`.
        init?(procField field: Substring) {
            let parts = field.split(separator: ":")
            guard parts.count == 2, parts[0].count == 8 || parts[0].count == 32, let port = UInt16(parts[1], radix: 16) else { return nil }
            var bytes: [UInt8] = []
            var start = parts[0].startIndex
            while start < parts[0].endIndex {
                let end = parts[0].index(start, offsetBy: 8)
                guard let word = UInt32(parts[0][start..<end], radix: 16) else { return nil }
                // The kernel printed the word's bytes as it holds them in memory, read as a
                // native integer: the same native read gives those bytes back, on any machine.
                bytes += withUnsafeBytes(of: word) { Array($0) }
                start = end
            }
            self.init(address: bytes, port: port)
        }
    }

    /// One socket: its two ends, its state, and the uid that owns it.
    struct Socket: Equatable {
        let local: Endpoint
        let remote: Endpoint
        let state: UInt8
        let uid: UInt32
    }

    /// The state of a connected socket.
    static let established: UInt8 = 0x01

    let sockets: [Socket]

    init(sockets: [Socket]) {
        self.sockets = sockets
    }

    /// The sockets listed in the text of `/proc/net/tcp` or `/proc/net/tcp6` (or both,
    /// concatenated); the heading and any line that does not parse are skipped.
    init(parsing text: String) {
        var sockets: [Socket] = []
        for line in text.split(separator: "\n") {
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 8, columns[0].hasSuffix(":"),
                  let local = Endpoint(procField: columns[1]), let remote = Endpoint(procField: columns[2]),
                  let state = UInt8(columns[3], radix: 16), let uid = UInt32(columns[7]) else { continue }
            sockets.append(Socket(local: local, remote: remote, state: state, uid: uid))
        }
        self.sockets = sockets
    }

    /// This machine's TCP sockets now, from both files (a missing file lists none).
    static func current() -> SocketOwnerTable {
        let text = ["/proc/net/tcp", "/proc/net/tcp6"].map { path in
            // Read to the end: the files report a size of 0.
            FileHandle(forReadingAtPath: path).map { handle in
                defer { try? handle.close() }
                return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
            } ?? ""
        }.joined(separator: "\n")
        return SocketOwnerTable(parsing: text)
    }

    /// The owners of the connected sockets whose local end is `endpoint`: for the other end of
    /// a loopback connection, the user at the other end (one uid; a set, so that a doubt shows).
    func owners(ofLocalEnd endpoint: Endpoint) -> Set<UInt32> {
        Set(sockets.lazy.filter { $0.state == Self.established && $0.local == endpoint }.map(\.uid))
    }
}
#endif

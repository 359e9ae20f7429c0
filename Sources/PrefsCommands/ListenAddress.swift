#if Prefs
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `serve --bind`: an IPv4 or IPv6 address literal (or `localhost`, meaning 127.0.0.1), what
/// the console may be reached by, and whether it is loopback.
struct ListenAddress {
    /// The address in its canonical form, as given to the server and printed (`localhost`
    /// resolved to `127.0.0.1`; `0:0:0:0:0:0:0:1` written `::1`, as a browser writes it).
    let text: String
    /// Whether it is IPv6.
    let isIPv6: Bool
    /// Whether only this machine can connect (127.0.0.0/8, ::1).
    let isLoopback: Bool
    /// Whether it is the unspecified address (0.0.0.0, ::): every interface.
    let isUnspecified: Bool

    /// Parses `--bind`.
    /// - Throws: `PrefsError` when it is not an IP address.
    init(_ given: String) throws {
        let text = given.lowercased() == "localhost" ? "127.0.0.1" : given
        var v4 = in_addr(), v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            let first = UInt32(bigEndian: v4.s_addr) >> 24
            self.text = Self.canonical(family: AF_INET, withUnsafeBytes(of: v4) { Array($0) }) ?? text
            isIPv6 = false
            isLoopback = first == 127
            isUnspecified = v4.s_addr == 0
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            let bytes = withUnsafeBytes(of: v6) { Array($0) }
            self.text = Self.canonical(family: AF_INET6, bytes) ?? text
            isIPv6 = true
            isLoopback = bytes == Array(repeating: 0, count: 15) + [1]
            isUnspecified = bytes.allSatisfy { $0 == 0 }
        } else {
            throw PrefsError("--bind needs an IP address such as 127.0.0.1, ::1 or 0.0.0.0 (got \(given.debugDescription))")
        }
    }

    /// The host as a URL writes it: IPv6 in brackets.
    var urlHost: String { isIPv6 ? "[\(text)]" : text }

    /// The host names a request's `Host` may carry: this address (and `localhost` for
    /// loopback); for the unspecified address, every address of this machine's interfaces.
    func servedHostNames() -> Set<String> {
        var names: Set<String> = [urlHost.lowercased()]
        if isLoopback { names.insert("localhost") }
        if isUnspecified {
            names.formUnion(Self.interfaceAddresses())
            names.insert("localhost")
        }
        return names
    }

    /// Every address of this machine's interfaces, IPv6 in brackets (without a zone).
    static func interfaceAddresses() -> Set<String> {
        var result: Set<String> = []
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return result }
        defer { freeifaddrs(list) }
        var cursor: UnsafeMutablePointer<ifaddrs>? = first
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr else { continue }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
            switch Int32(address.pointee.sa_family) {
            case AF_INET:
                var sin = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                if inet_ntop(AF_INET, &sin.sin_addr, &buffer, socklen_t(buffer.count)) != nil {
                    result.insert(Self.text(buffer))
                }
            case AF_INET6:
                var sin6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                if inet_ntop(AF_INET6, &sin6.sin6_addr, &buffer, socklen_t(buffer.count)) != nil {
                    result.insert("[" + Self.text(buffer).lowercased() + "]")
                }
            default:
                continue
            }
        }
        return result
    }

    /// An address as `inet_ntop` writes it: the shortest form, lowercase.
    private static func canonical(family: Int32, _ address: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return nil }
        return text(buffer)
    }

    /// A NUL-terminated C string from `inet_ntop` as a `String`.
    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif

#if Console
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A `Host` value as the console compares it: the name without its port, lowercased, and an
/// IP address in one form whatever way it was written. A browser writes the URL
/// `http://[0:0:0:0:0:0:0:1]:8765/` as `Host: [::1]:8765`, and `[::ffff:127.0.0.1]` is the
/// address 127.0.0.1: each pair must compare equal, or a console refuses its own page.
enum HostName {
    /// `host` without its port: `127.0.0.1:8080` → `127.0.0.1`, `[0:0::1]:8080` → `[::1]`,
    /// `[::ffff:127.0.0.1]` → `127.0.0.1`, `LOCALHOST` → `localhost`. The name is what DNS
    /// rebinding changes; the port is not.
    static func canonical(_ host: String) -> String {
        let name = nameAndPort(host.lowercased()).name
        if name.hasPrefix("["), name.hasSuffix("]") {
            var address = in6_addr()
            let literal = String(name.dropFirst().dropLast())
            guard inet_pton(AF_INET6, literal, &address) == 1 else { return name }
            let bytes = withUnsafeBytes(of: address) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                return bytes[12...].map { String($0) }.joined(separator: ".")
            }
            return "[" + text(family: AF_INET6, bytes) + "]"
        }
        var address = in_addr()
        if inet_pton(AF_INET, name, &address) == 1 { return text(family: AF_INET, withUnsafeBytes(of: address) { Array($0) }) }
        return name
    }

    /// The port a `Host` value names, or nil when it names none.
    static func port(_ host: String) -> String? {
        nameAndPort(host).port
    }

    /// `host` split at the colon before its port (an IPv6 literal keeps its brackets).
    private static func nameAndPort(_ host: String) -> (name: String, port: String?) {
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            let rest = host[host.index(after: end)...]
            return (String(host[...end]), rest.hasPrefix(":") ? String(rest.dropFirst()) : nil)
        }
        guard let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon else { return (host, nil) }
        return (String(host[..<colon]), String(host[host.index(after: colon)...]))
    }

    /// An address as `inet_ntop` writes it (the shortest IPv6 form, lowercase).
    private static func text(family: Int32, _ address: [UInt8]) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = address.withUnsafeBytes { inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }
        guard written != nil else { return "" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
#endif

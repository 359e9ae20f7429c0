#if Console && Prefs
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a blocking socket with time-outs, for talking to a real
/// server (a `prefs serve` process, chromedriver) and for reading an event stream line by
/// line; also a client that connects and then never reads.
final class RawHTTPConnection {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    struct Response {
        let status: Int
        let headers: [(String, String)]
        let body: Data
        var text: String { String(decoding: body, as: UTF8.self) }
        func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    }

    private let descriptor: Int32
    private var buffered = Data()

    /// Connects to 127.0.0.1:`port`.
    init(port: Int, host: String = "127.0.0.1") throws {
        // The socket is the object's only once connected. A class whose stored properties are
        // all set runs its `deinit` when its initializer throws: with `descriptor` set first,
        // a refused connection closed the socket here and again in `deinit`, and the second
        // close hit whatever another thread had opened under that number meanwhile (a SQLite
        // file, a PostgreSQL connection, a pipe). Each wait for a server to listen (chromedriver,
        // `prefs serve`) closed a few such descriptors: under the slow tier's load, fleet
        // machines lost their connections, SQLite reported IOERR_LOCK and short reads, and a
        // child could not be spawned (EBADF).
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw Failure(description: "socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let reason = errno
            close(socketDescriptor)
            throw Failure(description: "connect to \(host):\(port) failed: errno \(reason)")
        }
        descriptor = socketDescriptor
    }

    deinit { close(descriptor) }

    /// Sends a request; `Host` defaults to 127.0.0.1:PORT.
    func send(_ method: String, _ target: String, headers: [String: String] = [:], body: Data = Data(), host: String) throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || ["POST", "PUT"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try write(Data(head.utf8) + body)
    }

    func write(_ data: Data) throws {
        try data.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let sent = Glibc.send(descriptor, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
                guard sent > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                offset += sent
            }
        }
    }

    /// Reads more bytes, waiting at most `timeout`; false on time-out or end of stream.
    private func fill(timeout: Duration) throws -> Bool {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        guard poll(&poller, 1, milliseconds) > 0 else { return false }
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(descriptor, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffered.append(contentsOf: chunk[0..<count])
        return true
    }

    /// The next line (without CRLF), or nil after `timeout`.
    func line(timeout: Duration = .seconds(10)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                var line = buffered[buffered.startIndex..<newline]
                if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
                buffered = Data(buffered[(newline + 1)...])
                return String(decoding: line, as: UTF8.self)
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero, try fill(timeout: left) else { return nil }
        }
    }

    /// Reads a response head; the body is left for ``readBody(_:)`` or ``line(timeout:)``.
    /// The deadline is for a head that never comes: 100 connections opened at once on a loaded
    /// two-core machine have waited over 10 s for theirs.
    func head(timeout: Duration = .seconds(60)) throws -> (status: Int, headers: [(String, String)]) {
        guard let statusLine = try line(timeout: timeout) else { throw Failure(description: "no response") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw Failure(description: "bad status line \(statusLine)") }
        var headers: [(String, String)] = []
        while let line = try line(timeout: timeout), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        return (status, headers)
    }

    /// A whole response with a `Content-Length` or chunked body.
    func response(timeout: Duration = .seconds(30)) throws -> Response {
        let (status, headers) = try head(timeout: timeout)
        let find = { (name: String) in headers.first { $0.0.lowercased() == name }?.1 }
        var body = Data()
        if let length = find("content-length").flatMap({ Int($0) }) {
            while buffered.count < length { guard try fill(timeout: timeout) else { throw Failure(description: "short body") } }
            body = buffered.prefix(length)
            buffered = Data(buffered.dropFirst(length))
        } else if find("transfer-encoding")?.lowercased() == "chunked" {
            while let sizeLine = try line(timeout: timeout), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) {
                if size == 0 { _ = try line(timeout: timeout); break }
                while buffered.count < size + 2 { guard try fill(timeout: timeout) else { throw Failure(description: "short chunk") } }
                body += buffered.prefix(size)
                buffered = Data(buffered.dropFirst(size + 2))
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// One request on a new connection, its whole response.
    static func request(port: Int, _ method: String, _ target: String, headers: [String: String] = [:], body: Data = Data(),
                        host: String? = nil, timeout: Duration = .seconds(30)) throws -> Response {
        let connection = try RawHTTPConnection(port: port)
        try connection.send(method, target, headers: headers.merging(["Connection": "close"]) { a, _ in a }, body: body,
                            host: host ?? "127.0.0.1:\(port)")
        return try connection.response(timeout: timeout)
    }

    /// Whether the server closes the connection within `timeout` (what it sends meanwhile is
    /// dropped); false when it is still open then.
    func waitForClose(timeout: Duration) -> Bool {
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) > 0 else { continue }
            if recv(descriptor, &chunk, chunk.count, 0) <= 0 { return true }
        }
        return false
    }

    /// Waits for the next `data:` line of an event stream and returns its payload.
    func nextEvent(timeout: Duration = .seconds(60)) throws -> String? {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            guard let line = try line(timeout: deadline - ContinuousClock.now) else { return nil }
            if line.hasPrefix("data: ") { return String(line.dropFirst(6)) }
        }
        return nil
    }
}
#endif

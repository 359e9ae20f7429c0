#if Console && Prefs
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import SQLiteDefaultsConsole
import Testing
import TestScheduling

/// The deadlines that an idle timer leaves open, on an embedded channel whose clock the test
/// moves: a body trickled byte by byte, a response the client does not read.
@Suite("Request deadlines: slow bodies and unread responses", .offThePool)
struct RequestDeadlineHandlerTests {
    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: RequestDeadlineHandler(bodyTimeout: .seconds(15), writeTimeout: .seconds(15)))
        // An embedded channel's connect completes at once: this `wait()` never blocks.
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8765)).wait()
        return channel
    }

    static let put = HTTPRequest(method: .put, scheme: nil, authority: "127.0.0.1", path: "/api/keys/x")

    @Test("A body announced by its head and sent one byte every 5 s is cut off 15 s after the head, though bytes keep coming")
    func trickledBody() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.put))
        for second in stride(from: 5, through: 10, by: 5) {
            channel.embeddedEventLoop.advanceTime(by: .seconds(5))
            try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "x")))
            #expect(channel.isActive, "still open at \(second) s")
        }
        channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        #expect(channel.isActive, "open at 14 s")
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "closed at 15 s")
    }

    @Test("A request that ends in time keeps its connection, however long it then stays (idleness is the idle timer's)")
    func completeRequestStays() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.put))
        channel.embeddedEventLoop.advanceTime(by: .seconds(14))
        try channel.writeInbound(HTTPRequestPart.body(ByteBuffer(string: #"{"value": 1}"#)))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(120))
        #expect(channel.isActive)
        // Every part reached the next handler, unchanged.
        var parts: [HTTPRequestPart] = []
        while let part = try channel.readInbound(as: HTTPRequestPart.self) { parts.append(part) }
        #expect(parts.count == 3)
        _ = try channel.finish()
    }

    @Test("Each request on a connection has its own deadline, from its own head")
    func secondRequest() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(Self.put))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        try channel.writeInbound(HTTPRequestPart.head(Self.put))
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(channel.isActive, "10 s into the second request")
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(!channel.isActive, "15 s into the second request")
    }

    @Test("A response the client leaves unread for 15 s closes the connection; one it reads now and then does not")
    func unreadResponse() throws {
        let channel = try Self.channel()
        try channel.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "127.0.0.1", path: "/api/history")))
        try channel.writeInbound(HTTPRequestPart.end(nil))
        // A slow reader: the buffer fills and drains, each time within the deadline.
        for _ in 0..<5 {
            channel.isWritable = false
            channel.pipeline.fireChannelWritabilityChanged()
            channel.embeddedEventLoop.advanceTime(by: .seconds(10))
            channel.isWritable = true
            channel.pipeline.fireChannelWritabilityChanged()
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        }
        #expect(channel.isActive, "a reader that drains the buffer keeps its connection")
        // A reader that stopped.
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(14))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "closed 15 s after the client stopped reading")
    }
}
#endif

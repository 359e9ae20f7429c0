#if Console
import NIOCore
import NIOHTTPTypes

/// Closes an HTTP/1 connection whose client is too slow for a part of a request that an idle
/// timer does not cover: a body that does not arrive whole within ``bodyTimeout`` of its
/// head, or a response the client does not read for ``writeTimeout``.
///
/// An idle timer (Hummingbird's `idleTimeout`) restarts on every byte read, so a client that
/// sends a head announcing a large body and then one byte every few seconds is never idle; and
/// it does nothing while a response is being written, so a client that stops reading holds
/// its connection for ever. With a token or without one, a few hundred such clients fill every
/// connection a server allows. This handler gives each of those parts a deadline:
///
/// - **Body**: from a request's head to its end. The server may answer before it (a refusal
///   such as 401 is sent at once), but the connection is closed unless the body it announced
///   arrives whole in time; the next request cannot start before it has.
/// - **Response**: while the channel is not writable (the client reads too little of what it
///   is sent), for longer than the deadline. A client that reads, however slowly, makes the
///   channel writable again each time its reads drain the server's buffer.
///
/// Heads are left to the idle timer: a head arrives whole or not at all, so bytes of an
/// unfinished head do not restart it.
///
/// `prefs serve` adds one to every connection; an app that serves the console with its own
/// Hummingbird `Application` adds it the same way:
///
/// ```swift
/// let app = Application(
///     router: router,
///     server: .http1(configuration: .init(additionalChannelHandlers: [RequestDeadlineHandler()],
///                                         idleTimeout: .seconds(15))))
/// ```
///
/// Each connection needs its own handler (the configuration's closure makes one per connection).
public final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart
    public typealias OutboundIn = HTTPResponsePart
    public typealias OutboundOut = HTTPResponsePart

    /// How long a request's body may take to arrive whole, from its head.
    public let bodyTimeout: TimeAmount
    /// How long the client may leave the response unread (the channel not writable).
    public let writeTimeout: TimeAmount

    /// The close scheduled for a request whose end has not arrived yet.
    private var bodyDeadline: Scheduled<Void>?
    /// The close scheduled since the channel became unwritable.
    private var writeDeadline: Scheduled<Void>?

    /// A handler with these deadlines (15 seconds each by default, as `prefs serve` uses).
    public init(bodyTimeout: TimeAmount = .seconds(15), writeTimeout: TimeAmount = .seconds(15)) {
        self.bodyTimeout = bodyTimeout
        self.writeTimeout = writeTimeout
    }

    /// Starts the body's deadline at a head, ends it at the request's end; passes every part on.
    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            bodyDeadline?.cancel()
            bodyDeadline = closing(context, after: bodyTimeout)
        case .body:
            break
        case .end:
            bodyDeadline?.cancel()
            bodyDeadline = nil
        }
        context.fireChannelRead(data)
    }

    /// Starts the response's deadline when the channel stops being writable, ends it when it
    /// is writable again.
    public func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            writeDeadline?.cancel()
            writeDeadline = nil
        } else if writeDeadline == nil {
            writeDeadline = closing(context, after: writeTimeout)
        }
        context.fireChannelWritabilityChanged()
    }

    /// Ends both deadlines with the connection.
    public func channelInactive(context: ChannelHandlerContext) {
        cancelDeadlines()
        context.fireChannelInactive()
    }

    /// Ends both deadlines when the handler leaves the pipeline.
    public func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadlines()
    }

    private func cancelDeadlines() {
        bodyDeadline?.cancel()
        bodyDeadline = nil
        writeDeadline?.cancel()
        writeDeadline = nil
    }

    /// A close of the connection in `delay`, on its event loop.
    private func closing(_ context: ChannelHandlerContext, after delay: TimeAmount) -> Scheduled<Void> {
        // Every call of a handler is on its channel's event loop, and so is the task.
        context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension RequestDeadlineHandler: Sendable {}
#endif

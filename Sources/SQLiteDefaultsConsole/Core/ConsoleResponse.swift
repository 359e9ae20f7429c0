#if Console
import HTTPTypes

/// A response as the console makes it, for an adapter to send through its server.
package struct ConsoleResponse: Sendable {
    /// What follows the head.
    package enum Body: Sendable {
        /// Bytes known at once.
        case bytes([UInt8])
        /// Text written as it is made (the event stream, a history page), through `write`,
        /// until the closure returns; the adapter then ends the body.
        case stream(@Sendable (_ write: (String) async throws -> Void) async throws -> Void)
    }

    package var status: HTTPResponse.Status
    package var headers: HTTPFields
    package var body: Body

    package init(status: HTTPResponse.Status, headers: HTTPFields = [:], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
#endif

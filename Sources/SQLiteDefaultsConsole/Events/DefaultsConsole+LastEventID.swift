#if Console
import Foundation

extension DefaultsConsole {
    /// The position a `Last-Event-ID` header names: nil when there is none (the stream starts
    /// from now on), the history sequence when it is one (ASCII digits, at most Int64's
    /// largest, spaces around allowed), else a refusal (status 400).
    ///
    /// Refused rather than read as "no header": an id such as `-1`, `abc`, `+5` or one past
    /// Int64 names no change, and a stream that silently started live would let the client
    /// believe it resumed while it missed every change in between. `EventSource` only ever
    /// sends back an `id:` the stream sent, so a browser never meets the refusal; an empty
    /// header is what `EventSource` sends after an `id:` with no value, and means none.
    static func lastEventID(_ header: String?) -> Result<Int64?, RequestValue.Refusal> {
        guard let header else { return .success(nil) }
        let trimmed = header.trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
        if trimmed.isEmpty { return .success(nil) }
        guard trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let sequence = Int64(trimmed) else {
            let shown = trimmed.count > 40 ? String(trimmed.prefix(40)) + "…" : trimmed
            return .failure(RequestValue.Refusal(
                "Last-Event-ID must be a history sequence (digits, 0 to \(Int64.max)), as an event's id: names it; got \"\(shown)\""))
        }
        return .success(sequence)
    }
}
#endif

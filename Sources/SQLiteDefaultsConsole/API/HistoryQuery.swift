#if Console
import PrefsFormats

/// The query of `GET api/history?key=K&limit=N&after=SEQ`, checked: `key` may repeat (several
/// keys) or be absent (every key, as `prefs history` with no KEY); `limit` is a whole number
/// from 0, ``defaultLimit`` when absent, and a page holds at most ``maximumLimit`` entries
/// whatever it asks (a larger limit reads one full page, whose head names the next cursor), as
/// `api/keys` pages; `after` (or its older name `before`), when given, keeps only the entries
/// that come after that one in the page's order, newest first: those with a smaller sequence
/// (the next page's cursor: the previous page's last `seq`).
struct HistoryQuery: Equatable {
    /// The most entries one response holds (at most 16 MiB of kept values), however long the
    /// file's history is and whatever `limit` asks: a larger limit is read as this one, and the
    /// response's `X-History-Next-Before` and `Link` name the next page. Clamped rather than
    /// refused, as a client that asks for "everything" expects a first page, not an error.
    static let maximumLimit = 5_000
    /// The page's length when the request names none (as `api/keys`).
    static let defaultLimit = 500

    /// The keys asked for, or nil for every key.
    let keys: [String]?
    /// At most this many entries.
    let limit: Int
    /// Only entries older than this sequence; nil for the newest.
    let before: Int64?

    /// The query from its percent-decoded `key`, `limit` and `before` parameters, each as often
    /// as given.
    /// - Throws: ``RequestValue/Refusal`` for an empty key, a limit that is not a whole number
    ///   from 0, or a `before` that is not a positive whole number; the route answers 400 with
    ///   its message.
    init(keys: [Substring], limits: [Substring], befores: [Substring] = [], afters: [Substring] = []) throws(RequestValue.Refusal) {
        let keys = keys.map(String.init)
        if keys.contains(where: { $0.isEmpty }) {
            throw RequestValue.Refusal("key must name a key (percent-encoded)")
        }
        self.keys = keys.isEmpty ? nil : keys
        guard limits.count <= 1 else { throw RequestValue.Refusal("limit must be given once") }
        guard befores.count + afters.count <= 1 else { throw RequestValue.Refusal("after (or before) must be given once") }
        if let text = afters.first ?? befores.first {
            let name = afters.isEmpty ? "before" : "after"
            guard let before = Self.wholeNumber(text), before > 0 else {
                throw RequestValue.Refusal("\(name) must be a history sequence number (a whole number above 0), not \(ValueFormatting.quoted(String(text)))")
            }
            self.before = before
        } else {
            before = nil
        }
        guard let text = limits.first else {
            limit = Self.defaultLimit
            return
        }
        guard let requested = Self.wholeNumber(text).map({ Int($0) }) else {
            throw RequestValue.Refusal("limit must be a whole number from 0 (a page holds at most \(Self.maximumLimit); read further with after=SEQ), not \(ValueFormatting.quoted(String(text)))")
        }
        limit = min(requested, Self.maximumLimit)
    }

    /// `text` as a whole number written in ASCII digits alone; nil for a sign (`+5` is not 5:
    /// what is read one way only is refused another), a space, or past `Int64.max`.
    static func wholeNumber(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int64(text)
    }
}
#endif

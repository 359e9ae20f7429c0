import PrefsFormats

/// The query of `GET api/history?key=K&limit=N`, checked: `key` may repeat (several keys) or
/// be absent (every key, as `prefs history` with no KEY); `limit` is a whole number from 0 to
/// ``maximumLimit``, 100 when absent, as `prefs history --limit`.
struct HistoryQuery: Equatable {
    /// The largest `limit` accepted: bounds one response, whatever length the file keeps.
    static let maximumLimit = 100_000

    /// The keys asked for, or nil for every key.
    let keys: [String]?
    /// At most this many entries.
    let limit: Int

    /// The query from its percent-decoded `key` and `limit` parameters, each as often as given.
    /// - Throws: ``RequestValue/Refusal`` for an empty key, or a limit that is not a whole
    ///   number in range; the route answers 400 with its message.
    init(keys: [Substring], limits: [Substring]) throws(RequestValue.Refusal) {
        let keys = keys.map(String.init)
        if keys.contains(where: { $0.isEmpty }) {
            throw RequestValue.Refusal("key must name a key (percent-encoded)")
        }
        self.keys = keys.isEmpty ? nil : keys
        guard limits.count <= 1 else { throw RequestValue.Refusal("limit must be given once") }
        guard let text = limits.first else {
            limit = 100
            return
        }
        guard let limit = Int(text), (0...Self.maximumLimit).contains(limit) else {
            throw RequestValue.Refusal("limit must be a whole number from 0 to \(Self.maximumLimit), not \(ValueFormatting.quoted(String(text)))")
        }
        self.limit = limit
    }
}

/// Who a transaction's writes were made for and why, as the public API's `actor:` and
/// `reason:` name them: recorded with each history entry (through ``WriterIdentity``) and
/// carried by the changes delivered after the commit.
struct WriteAttribution: Sendable, Hashable {
    let actor: String?
    let reason: String?

    /// The longest actor kept, in UTF-8 bytes.
    static let actorLimit = 256
    /// The longest reason kept, in UTF-8 bytes: a paragraph, not a document (every entry the
    /// transaction writes repeats it).
    static let reasonLimit = 16_384

    /// An attribution; nil when both are nil or empty.
    /// - Throws: ``DefaultsError`` `.invalidAttribution` when either is longer than its limit.
    static func make(actor: String?, reason: String?) throws -> WriteAttribution? {
        let actor = actor.flatMap { $0.isEmpty ? nil : $0 }
        let reason = reason.flatMap { $0.isEmpty ? nil : $0 }
        guard actor != nil || reason != nil else { return nil }
        if let actor, actor.utf8.count > actorLimit {
            throw DefaultsError(.invalidAttribution, "an actor is at most \(actorLimit) bytes (got \(actor.utf8.count))")
        }
        if let reason, reason.utf8.count > reasonLimit {
            throw DefaultsError(.invalidAttribution, "a reason is at most \(reasonLimit) bytes (got \(reason.utf8.count))")
        }
        return WriteAttribution(actor: actor, reason: reason)
    }
}

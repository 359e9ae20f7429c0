#if Console
import Synchronization

/// The sessions `?token=` opens: each a random identifier that means nothing anywhere else,
/// kept in this console's memory with its expiry and the credential (name, role, prefixes,
/// salted hash) it was opened with. The cookie carries the identifier, never
/// the token, so a cookie that reaches another server on the same host (browsers send a
/// host's cookies to all its ports) is useless there, and dies with this server.
///
/// Bounded per token, so that no token holder can end another's sessions: a token keeps at
/// most ``perToken`` open (its next one forgets its own session that expires first), and the
/// table at most ``total`` in all (past it, the token holding the most sessions gives up the
/// one that expires first: a token with fewer sessions than the one opening never loses one).
final class ConsoleSessions: Sendable {
    /// How long a session lasts after it is opened.
    let lifetime: Duration
    /// The most sessions one token keeps open at once.
    let perToken: Int
    /// The most sessions kept at once, whatever the tokens.
    let total: Int
    /// ``perToken`` by default: a person's browsers and devices, with room to spare. A script
    /// that opens sessions in a loop ends only its own.
    static let defaultPerToken = 32
    /// ``total`` by default: 32 for each of 312 tokens, a few MiB at most.
    static let defaultTotal = 10_000

    /// A session: when it ends, and whose it is.
    private struct Session {
        let expiry: ContinuousClock.Instant
        let credential: ConsoleCredential
    }

    private let sessions = Mutex<[String: Session]>([:])

    init(lifetime: Duration, perToken: Int = defaultPerToken, total: Int = defaultTotal) {
        self.lifetime = lifetime
        self.perToken = max(1, perToken)
        self.total = max(1, total)
    }

    /// Opens a session for `credential` and returns its identifier: 32 random bytes, hex.
    /// Forgets a session first when `credential`'s token, or the table, is full (see the type).
    func open(for credential: ConsoleCredential) -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): fit for secrets
        let identifier = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expiry > now }
            let own = Array(sessions.filter { $0.value.credential == credential })
            if own.count >= perToken {
                Self.forgetOldest(of: own, in: &sessions)
            } else if sessions.count >= total {
                // The token holding the most gives one up; the opener itself on a tie.
                let byToken = Dictionary(grouping: sessions, by: \.value.credential)
                let most = byToken.values.map(\.count).max() ?? 0
                let heaviest = own.count == most ? own : byToken.values.first { $0.count == most } ?? []
                Self.forgetOldest(of: heaviest, in: &sessions)
            }
            sessions[identifier] = Session(expiry: now + lifetime, credential: credential)
        }
        return identifier
    }

    /// Removes from `sessions` the one of `candidates` that expires first.
    private static func forgetOldest(of candidates: [(key: String, value: Session)], in sessions: inout [String: Session]) {
        if let oldest = candidates.min(by: { $0.value.expiry < $1.value.expiry }) {
            sessions.removeValue(forKey: oldest.key)
        }
    }

    /// The credential of the open session `identifier`, or nil when it names none or it expired.
    ///
    /// A dictionary lookup, not a constant-time compare: the identifiers are 256 random bits and
    /// `Hasher` is seeded per process, so the time of a lookup says nothing about how close a
    /// guess was.
    func credential(of identifier: String) -> ConsoleCredential? {
        let now = ContinuousClock.now
        return sessions.withLock { sessions in
            guard let session = sessions[identifier] else { return nil }
            if session.expiry <= now {
                sessions.removeValue(forKey: identifier)
                return nil
            }
            return session.credential
        }
    }

    /// Ends the session `identifier` (its token was removed).
    func close(_ identifier: String) {
        _ = sessions.withLock { $0.removeValue(forKey: identifier) }
    }
}
#endif

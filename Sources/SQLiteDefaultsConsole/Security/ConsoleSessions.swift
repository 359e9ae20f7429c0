#if Console
import Synchronization

/// The sessions `?token=` opens: each a random identifier that means nothing anywhere else,
/// kept in this console's memory with its expiry and the credential (name, role, prefixes,
/// salted hash) it was opened with. The cookie carries the identifier, never
/// the token, so a cookie that reaches another server on the same host (browsers send a
/// host's cookies to all its ports) is useless there, and dies with this server.
final class ConsoleSessions: Sendable {
    /// How long a session lasts after it is opened.
    let lifetime: Duration
    /// The most sessions kept at once; opening one more forgets the one that expires first,
    /// so `?token=` requests cannot grow the table without bound.
    static let maximumCount = 1_000

    /// A session: when it ends, and whose it is.
    private struct Session {
        let expiry: ContinuousClock.Instant
        let credential: ConsoleCredential
    }

    private let sessions = Mutex<[String: Session]>([:])

    init(lifetime: Duration) {
        self.lifetime = lifetime
    }

    /// Opens a session for `credential` and returns its identifier: 32 random bytes, hex.
    func open(for credential: ConsoleCredential) -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): fit for secrets
        let identifier = (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return (byte < 16 ? "0" : "") + String(byte, radix: 16)
        }.joined()
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value.expiry > now }
            if sessions.count >= Self.maximumCount, let first = sessions.min(by: { $0.value.expiry < $1.value.expiry }) {
                sessions.removeValue(forKey: first.key)
            }
            sessions[identifier] = Session(expiry: now + lifetime, credential: credential)
        }
        return identifier
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

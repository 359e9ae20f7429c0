import Foundation
import SQLiteDefaults

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Who a `prefs` write is made for and why: the actor and reason the history records for
/// `write`, `delete`, `rename`, `import` and `revert`, and how the history and `watch` show them.
///
/// ```swift
/// let actor = Attribution.actor(environment: ProcessInfo.processInfo.environment)  // $PREFS_ACTOR, else the login name
/// try Attribution.check(actor: actor, reason: "INC-4711")
/// Attribution.text(actor: "alice", reason: "two\nlines")   // for alice: "two\nlines"
/// ```
package enum Attribution {
    /// The environment variable that names the actor of the CLI's writes.
    package static let actorVariable = "PREFS_ACTOR"
    /// The longest actor the history keeps, in UTF-8 bytes (as the library checks it).
    package static let actorByteLimit = 256
    /// The longest reason the history keeps, in UTF-8 bytes (as the library checks it).
    package static let reasonByteLimit = 16_384
    /// The most characters of a reason a human line shows; JSON always has all of it.
    package static let shownReasonLimit = 200

    /// The actor of this process's writes: `$PREFS_ACTOR` when set and not empty, else the
    /// login name (``loginName()``).
    package static func actor(environment: [String: String]) -> String? {
        if let named = environment[actorVariable], !named.isEmpty { return named }
        return loginName()
    }

    /// The name the user logged in as (getlogin_r(3): under `sudo` still the person who logged
    /// in); with no controlling terminal's login record (a container, a cron job), the
    /// effective user's name from the password database; nil when neither is known.
    package static func loginName() -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        if getlogin_r(&buffer, buffer.count) == 0 {
            let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            if !bytes.isEmpty { return String(decoding: bytes, as: UTF8.self) }
        }
        var record = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var entry = [CChar](repeating: 0, count: 4096)
        if getpwuid_r(geteuid(), &record, &entry, entry.count, &result) == 0, let found = result, let name = found.pointee.pw_name {
            let text = String(cString: name)
            return text.isEmpty ? nil : text
        }
        return nil
    }

    /// Refuses, in one line, an actor or reason the history would not keep, before anything
    /// is opened or written.
    /// - Throws: ``FormatError`` naming the limit and the size given.
    package static func check(actor: String?, reason: String?) throws(FormatError) {
        if let actor, actor.utf8.count > actorByteLimit {
            throw FormatError("the actor ($\(actorVariable) or the login name) is \(actor.utf8.count) bytes; at most \(actorByteLimit) are kept; nothing was written")
        }
        if let reason, reason.utf8.count > reasonByteLimit {
            throw FormatError("--reason is \(reason.utf8.count) bytes; at most \(reasonByteLimit) are kept; nothing was written")
        }
    }

    /// The actor and reason as JSON members to append to an object (`,"actor":"alice","reason":"…"`),
    /// each left out when unknown; empty when both are.
    package static func jsonMembers(_ writer: DefaultsWriter?) -> String {
        var members = ""
        if let actor = writer?.actor { members += #","actor":"# + ExportFormat.quote(actor) }
        if let reason = writer?.reason { members += #","reason":"# + ExportFormat.quote(reason) }
        return members
    }

    /// The actor and reason for a human line, with a leading space: ` for alice: "why"`,
    /// ` for alice`, ` because "why"`; empty when neither is known. The reason is shown on one
    /// line (newlines and control characters escaped, quotes as \"), cut after
    /// ``shownReasonLimit`` characters.
    package static func text(actor: String?, reason: String?) -> String {
        var text = ""
        if let actor { text += " for " + ValueFormatting.escaped(actor) }
        if let reason {
            let shown = reason.count > shownReasonLimit ? String(reason.prefix(shownReasonLimit)) + "…" : reason
            let quoted = "\"" + ValueFormatting.escaped(shown).replacingOccurrences(of: "\"", with: "\\\"") + "\""
            text += actor == nil ? " because " + quoted : ": " + quoted
        }
        return text
    }

    /// ``text(actor:reason:)`` of a writer's actor and reason.
    package static func text(_ writer: DefaultsWriter?) -> String {
        text(actor: writer?.actor, reason: writer?.reason)
    }
}

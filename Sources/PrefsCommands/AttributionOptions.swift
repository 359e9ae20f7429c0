#if Prefs
import ArgumentParser
import Foundation
import PrefsFormats
import SQLiteDefaults

/// `--reason TEXT` of the commands that write (`write`, `delete`, `rename`, `import`,
/// `revert`), and the actor: `$PREFS_ACTOR`, else the login name. Both are recorded with
/// every change the command makes (`prefs history`, `watch --json`).
struct AttributionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Why the change is made, kept in the history with who made it ($PREFS_ACTOR, else your login name).",
        valueName: "text"))
    var reason: String?

    /// The actor and reason to record, checked against the history's limits.
    /// - Throws: `FormatError` (one line, exit 1) when either is too long; call it before
    ///   opening the database, so a refused command writes nothing.
    func resolved() throws(FormatError) -> Attributed {
        let actor = Attribution.actor(environment: ProcessInfo.processInfo.environment)
        try Attribution.check(actor: actor, reason: reason)
        return Attributed(actor: actor, reason: reason)
    }
}

/// An actor and a reason, checked (see ``AttributionOptions/resolved()``).
struct Attributed {
    let actor: String?
    let reason: String?
}

extension DefaultsStore {
    /// ``transaction(actor:reason:_:)`` with a command's actor and reason: every write in
    /// `body`, through the transaction or the store, is recorded with them.
    /// - Throws: what `body` throws, and the errors of a transaction.
    @discardableResult
    func transaction<Result>(_ attributed: Attributed, _ body: (DefaultsTransaction) throws -> Result) throws -> Result {
        try transaction(actor: attributed.actor, reason: attributed.reason, body)
    }
}

extension DefaultsTransaction {
    /// `--if-seq N`: throws, with exit status 3, unless `key` is at version `expected` now
    /// (nothing to check when it is nil). Made inside the transaction that then writes.
    /// - Throws: ``PrefsError`` (exit 3) naming the key's version now.
    func require(version expected: Int64?, of key: String) throws {
        guard let expected else { return }
        do {
            try requireVersion(expected, of: key)
        } catch let error as DefaultsError where error.code == .versionConflict {
            let current = error.currentVersion.map(String.init) ?? "another version"
            throw PrefsError("key \(ValueFormatting.quoted(key)) is at version \(current), not \(expected); nothing was written",
                             exitCode: PrefsError.versionConflictStatus)
        }
    }
}

extension PrefsError {
    /// The exit status of `--if-seq N` when the key has moved on.
    static let versionConflictStatus: Int32 = 3
}
#endif

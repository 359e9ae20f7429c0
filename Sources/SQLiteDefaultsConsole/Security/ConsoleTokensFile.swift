#if Console
import PrefsFormats
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A tokens file that a running console follows: each authentication looks at the file's
/// `stat` (inode, size, times, mode, owner) and reads it again when any of them changed, so a
/// token added with `prefs token add` works at once and a removed one (its sessions too) stops,
/// without a restart.
///
/// A file that becomes malformed, readable by others, or missing fails closed: none of its
/// tokens is accepted (the console answers 403 naming the problem) until it is fixed. The
/// problem, and its end, are reported once each through `onChange`.
///
/// ```swift
/// let file = try ConsoleTokensFile(path: "/etc/app/console-tokens") { problem in
///     logger.warning("\(problem ?? "the tokens file is valid again")")
/// }
/// var configuration = DefaultsConsole.Configuration()
/// configuration.tokensFile = file
/// ```
///
/// An edit in place that keeps the file's size and lands within the file system's timestamp
/// granularity of the previous one can go unseen until the next change; `prefs token` replaces
/// the file (a new inode) every time.
public final class ConsoleTokensFile: Sendable {
    /// The file's path.
    public let path: String
    private let onChange: @Sendable (String?) -> Void
    private let state: Mutex<State>

    /// What was last read, and from which version of the file.
    private struct State {
        var signature: FileSignature?
        var tokens: Result<ConsoleTokens, ConsoleTokensError>
    }

    /// What `stat` says about a version of the file; a different value means a different file.
    struct FileSignature: Equatable {
        let device: UInt64, inode: UInt64, size: Int64, mode: UInt32, owner: UInt32
        let modified: Int64, modifiedNanoseconds: Int, changed: Int64, changedNanoseconds: Int

        /// The signature of the file at `path`, or nil when it cannot be stat'ed.
        static func of(_ path: String) -> FileSignature? {
            var status = stat()
            guard stat(path, &status) == 0 else { return nil }
            return FileSignature(device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
                                 mode: UInt32(status.st_mode), owner: UInt32(status.st_uid),
                                 modified: Int64(status.st_mtim.tv_sec), modifiedNanoseconds: Int(status.st_mtim.tv_nsec),
                                 changed: Int64(status.st_ctim.tv_sec), changedNanoseconds: Int(status.st_ctim.tv_nsec))
        }
    }

    /// Follows the file at `path`, reading it now.
    ///
    /// - Parameters:
    ///   - path: the tokens file.
    ///   - onChange: called when the file becomes unusable (with the problem, one line) and
    ///     when it is usable again (with nil); once per change, never under a lock.
    /// - Throws: ``ConsoleTokensError`` when the file cannot be used now (see
    ///   ``ConsoleTokens/load(from:allowMissing:)``), or holds no token
    ///   (``ConsoleTokensError/Kind/empty``): a console would refuse everyone.
    public init(path: String, onChange: @escaping @Sendable (String?) -> Void = { _ in }) throws(ConsoleTokensError) {
        self.path = path
        self.onChange = onChange
        let signature = FileSignature.of(path)
        let tokens = try ConsoleTokens.load(from: path)
        guard !tokens.entries.isEmpty else {
            throw ConsoleTokensError(.empty, "the tokens file \(ValueFormatting.quoted(path)) holds no token: add one with prefs token add NAME --role ROLE --tokens FILE")
        }
        state = Mutex(State(signature: signature, tokens: .success(tokens)))
    }

    /// The tokens as the file holds them now, or why it cannot be used: the file is read again
    /// when its `stat` changed since the last call.
    public func current() -> Result<ConsoleTokens, ConsoleTokensError> {
        let signature = FileSignature.of(path)
        let (tokens, report): (Result<ConsoleTokens, ConsoleTokensError>, String??) = state.withLock { state in
            guard signature != state.signature || signature == nil else { return (state.tokens, nil) }
            let fresh: Result<ConsoleTokens, ConsoleTokensError>
            do throws(ConsoleTokensError) {
                fresh = .success(try ConsoleTokens.load(from: path))
            } catch {
                fresh = .failure(error)
            }
            let before = state.tokens
            state.signature = signature
            state.tokens = fresh
            switch (before, fresh) {
            case (.success, .failure(let error)): return (fresh, .some(error.message))
            case (.failure(let old), .failure(let error)) where old != error: return (fresh, .some(error.message))
            case (.failure, .success): return (fresh, .some(nil))
            default: return (fresh, nil)
            }
        }
        if let report { onChange(report) }
        return tokens
    }
}
#endif

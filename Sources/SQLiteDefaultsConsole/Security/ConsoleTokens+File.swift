#if Console
import Foundation
import PrefsFormats
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading and writing a tokens file: private to its owner (mode 0600), replaced whole.
extension ConsoleTokens {
    /// The tokens in the file at `path`.
    ///
    /// ```swift
    /// let tokens = try ConsoleTokens.load(from: "/etc/app/console-tokens")
    /// ```
    /// - Parameters:
    ///   - path: the tokens file.
    ///   - allowMissing: answer an empty set when there is no file (for `prefs token add`,
    ///     which creates it), instead of throwing.
    /// - Throws: ``ConsoleTokensError``: the file is missing, cannot be read, is not UTF-8, its
    ///   group or others may read or write it (mode & 0o077 is not 0: `chmod 600` it), another
    ///   user owns it, or a line is refused (see ``init(parsing:source:)``).
    public static func load(from path: String, allowMissing: Bool = false) throws(ConsoleTokensError) -> ConsoleTokens {
        let source = "the tokens file \(ValueFormatting.quoted(path))"
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT {
                if allowMissing { return ConsoleTokens() }
                throw ConsoleTokensError(.missing, "\(source) does not exist (prefs token add NAME --role ROLE --tokens FILE creates it)")
            }
            throw ConsoleTokensError(.unreadable, "cannot read \(source): \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        // The checks are made on the descriptor read, so a file swapped in between is not missed.
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ConsoleTokensError(.unreadable, "cannot read \(source): \(String(cString: strerror(errno)))")
        }
        try checkPrivate(status, source: source)
        var data = Data()
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(descriptor, &chunk, chunk.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw ConsoleTokensError(.unreadable, "cannot read \(source): \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            data.append(contentsOf: chunk[0..<count])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConsoleTokensError(.malformed(line: 0), "\(source) is not UTF-8 text")
        }
        return try ConsoleTokens(parsing: text, source: source)
    }

    /// Refuses a file its group or others may use, or another user owns.
    static func checkPrivate(_ status: stat, source: String) throws(ConsoleTokensError) {
        let mode = String(status.st_mode & 0o7777, radix: 8)
        if status.st_uid != geteuid() {
            throw ConsoleTokensError(.notOwned, "\(source) belongs to another user (uid \(status.st_uid), mode 0\(mode)): it must be yours, with mode 600")
        }
        if status.st_mode & 0o077 != 0 {
            throw ConsoleTokensError(.permissive, "\(source) can be read by others (mode 0\(mode)): chmod 600 it")
        }
    }

    /// Writes the set to `path`, replacing the file whole: a new file in the same folder,
    /// created with mode 0600 whatever the umask, synced, then renamed over `path`. A reader
    /// (a running `prefs serve`) sees the old file or the new one, never half of one.
    ///
    /// ```swift
    /// var tokens = try ConsoleTokens.load(from: path, allowMissing: true)
    /// let token = try tokens.add(name: "alice", role: .read)
    /// try tokens.save(to: path)
    /// ```
    /// - Throws: ``ConsoleTokensError`` (``ConsoleTokensError/Kind/unreadable``) when the file
    ///   cannot be written; `path` is then unchanged.
    public func save(to path: String) throws(ConsoleTokensError) {
        let source = "the tokens file \(ValueFormatting.quoted(path))"
        let folder = (path as NSString).deletingLastPathComponent
        let name = (path as NSString).lastPathComponent
        let temporary = (folder.isEmpty ? "" : folder + "/") + "." + name + "." + String(UInt64.random(in: 0...UInt64.max), radix: 16) + ".tmp"
        let failure = { (what: String, code: Int32) in
            ConsoleTokensError(.unreadable, "cannot write \(source): \(what): \(String(cString: strerror(code)))")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("cannot create \(temporary)", errno) }
        var written = false
        defer {
            if !written { unlink(temporary) }
        }
        do {
            defer { close(descriptor) }
            // The umask may have taken bits from 0600 (never added any); fchmod says it exactly.
            guard fchmod(descriptor, 0o600) == 0 else { throw failure("chmod", errno) }
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw failure("write", errno)
                }
                offset += count
            }
            guard fsync(descriptor) == 0 else { throw failure("fsync", errno) }
        }
        guard rename(temporary, path) == 0 else { throw failure("rename", errno) }
        written = true
        // The rename itself reaches the disk with the folder.
        let directory = open(folder.isEmpty ? "." : folder, O_RDONLY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }

    /// Loads the file at `path` (an empty set when there is none), applies `change`, and saves
    /// it; returns what `change` returned. Two changes made at the same moment by two processes
    /// may lose one of them (the file has no lock); each leaves a whole, valid file.
    ///
    /// ```swift
    /// let token = try ConsoleTokens.update(at: path) { try $0.add(name: "alice", role: .read) }
    /// ```
    /// - Throws: ``ConsoleTokensError`` from ``load(from:allowMissing:)``, `change` or ``save(to:)``;
    ///   the file is then unchanged.
    public static func update<Result>(at path: String, _ change: (inout ConsoleTokens) throws(ConsoleTokensError) -> Result) throws(ConsoleTokensError) -> Result {
        var tokens = try load(from: path, allowMissing: true)
        let result = try change(&tokens)
        try tokens.save(to: path)
        return result
    }
}
#endif

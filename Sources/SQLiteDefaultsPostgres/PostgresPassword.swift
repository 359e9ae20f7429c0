#if Fleet
import Foundation
import SQLiteDefaults

/// Finds the PostgreSQL password outside the URL, as libpq does, so it never has to be a
/// command-line argument that every local user reads in `ps` for the sidecar's whole life.
///
/// ```swift
/// let url = try PostgresPassword.resolve(for: PostgresURL("postgres://app@db:5432/prefs"),
///                                        warn: { logger.warning("\($0)") })
/// let client = PostgresClient(configuration: url.configuration)
/// ```
///
/// The first of these wins:
/// 1. a password in the URL (used, with a warning: it is visible to others);
/// 2. a password file given by the caller (`prefs sync --password-file FILE`): its first line,
///    refused when it is missing, unreadable, empty, or open to group or others;
/// 3. the environment variable `PGPASSWORD`;
/// 4. the password file `PGPASSFILE`, else `~/.pgpass`: lines `host:port:database:user:password`,
///    `*` matching anything, `\:` and `\\` escaping, `#` starting a comment; the first line that
///    matches the URL's host, port, database and user wins. Ignored with a warning when open to
///    group or others (permissions should be 0600 or less), as libpq does.
///
/// No password found is not an error: the server may not ask for one.
public enum PostgresPassword {
    /// Returns `url` with the password found (or `url` itself when it has one, or none is found).
    ///
    /// - Parameters:
    ///   - url: the server's address, with or without a password.
    ///   - passwordFile: a file holding the password on its first line (a trailing newline is
    ///     not part of it), checked before `PGPASSWORD`.
    ///   - environment: where `PGPASSWORD`, `PGPASSFILE` and `HOME` are read.
    ///   - warn: called with one line for each thing worth a warning: a password in the URL,
    ///     a `.pgpass` ignored for its permissions. Never with a password.
    /// - Throws: `DefaultsError` `.invalidConfiguration` when `passwordFile` is missing,
    ///   unreadable, not a regular file, empty, or readable by group or others.
    public static func resolve(for url: PostgresURL, passwordFile: String? = nil,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               warn: (String) -> Void) throws -> PostgresURL {
        if url.hasPassword {
            warn("the PostgreSQL URL carries a password, which other local users can read in the process list; give it in a password file, PGPASSWORD or ~/.pgpass instead")
            return url
        }
        if let passwordFile {
            return url.withPassword(try read(passwordFile: passwordFile))
        }
        if let password = environment["PGPASSWORD"], !password.isEmpty {
            return url.withPassword(password)
        }
        let pgpass: String
        if let file = environment["PGPASSFILE"], !file.isEmpty {
            pgpass = file
        } else if let home = environment["HOME"], !home.isEmpty {
            pgpass = home + "/.pgpass"
        } else {
            return url
        }
        var info = stat()
        guard stat(pgpass, &info) == 0 else { return url }  // no such file: nothing to use, as libpq
        guard info.st_mode & S_IFMT == S_IFREG else {
            warn("the password file \(pgpass) is not a plain file; it is ignored")
            return url
        }
        guard info.st_mode & 0o077 == 0 else {
            warn("the password file \(pgpass) has group or world access; it is ignored (permissions should be u=rw (0600) or less)")
            return url
        }
        guard let data = FileManager.default.contents(atPath: pgpass) else { return url }
        let found = PgPass.password(in: String(decoding: data, as: UTF8.self), host: url.host, port: url.port,
                                    database: url.database, user: url.user)
        return found.map(url.withPassword) ?? url
    }

    /// The first line of a private password file.
    private static func read(passwordFile path: String) throws -> String {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw DefaultsError(.invalidConfiguration, "cannot read the password file \(path): \(String(cString: strerror(errno)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw DefaultsError(.invalidConfiguration, "the password file \(path) is not a regular file")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw DefaultsError(.invalidConfiguration, "the password file \(path) can be read by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); make it private: chmod 600 \(path)")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DefaultsError(.invalidConfiguration, "cannot read the password file \(path): permission denied")
        }
        let text = String(decoding: data, as: UTF8.self)
        // Split on any line end: "\r\n" is one Character, which a split on "\n" never sees.
        let line = text.split(maxSplits: 1, omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
        guard !line.isEmpty else {
            throw DefaultsError(.invalidConfiguration, "the password file \(path) is empty; its first line must hold the password")
        }
        return line
    }
}

/// libpq's password file format: `hostname:port:database:username:password` per line.
enum PgPass {
    /// The password of the first line that matches, de-escaped; nil when none does.
    ///
    /// As libpq: a line starting with `#` is a comment; a field `*` matches anything; `\`
    /// escapes the next character (`\:` a colon, `\\` a backslash); the password ends at the
    /// first unescaped `:` or the end of the line; a line with fewer fields is skipped.
    static func password(in contents: String, host: String, port: Int, database: String, user: String) -> String? {
        let wanted = [host, String(port), database, user]
        // Any line end: "\r\n" is one Character, which a split on "\n" never sees.
        for line in contents.split(whereSeparator: \.isNewline) {
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let fields = self.fields(of: line), fields.count == 5 else { continue }
            let matches = zip(fields.prefix(4), wanted).allSatisfy { field, value in
                field.isWildcard || field.text == value
            }
            if matches { return fields[4].text }
        }
        return nil
    }

    /// One field: its de-escaped text, and whether it was written as a bare `*`.
    struct Field: Equatable {
        var text: String
        var isWildcard: Bool
    }

    /// The four match fields and the password of one line; nil when it has fewer than five.
    /// Whatever follows the password's end (an unescaped `:`) is ignored, as libpq does.
    static func fields(of line: Substring) -> [Field]? {
        var fields: [Field] = []
        var text = ""
        var raw = ""
        var escaping = false
        for character in line {
            if escaping {
                text.append(character)
                raw.append(character)
                escaping = false
            } else if character == "\\" {
                escaping = true
                raw.append(character)
            } else if character == ":" {
                fields.append(Field(text: text, isWildcard: raw == "*"))
                if fields.count == 5 { return fields }
                text = ""
                raw = ""
            } else {
                text.append(character)
                raw.append(character)
            }
        }
        // A trailing lone backslash stands for itself, as in libpq.
        if escaping { text.append("\\") }
        guard fields.count == 4 else { return nil }
        fields.append(Field(text: text, isWildcard: false))
        return fields
    }
}
#endif

#if Fleet && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// libpq's password file format and the order in which passwords are looked for.
@Suite("PostgreSQL passwords: pgpass and the order of sources", .offThePool)
struct PgPassTests {
    static func lookup(_ contents: String, host: String = "db", port: Int = 5432, database: String = "prefs",
                       user: String = "app") -> String? {
        PgPass.password(in: contents, host: host, port: port, database: database, user: user)
    }

    @Test("the first matching line wins; * matches any field; other hosts, ports, databases and users do not match")
    func matching() {
        #expect(Self.lookup("db:5432:prefs:app:secret") == "secret")
        #expect(Self.lookup("other:5432:prefs:app:no\ndb:5432:prefs:app:yes\ndb:5432:prefs:app:later") == "yes")
        #expect(Self.lookup("*:*:*:*:any") == "any")
        #expect(Self.lookup("db:*:prefs:*:some") == "some")
        #expect(Self.lookup("db:5433:prefs:app:no") == nil)
        #expect(Self.lookup("db:5432:other:app:no") == nil)
        #expect(Self.lookup("db:5432:prefs:root:no") == nil)
        #expect(Self.lookup("") == nil)
    }

    @Test("\\: and \\\\ are escapes in every field; an escaped * is a plain star; the password ends at an unescaped colon")
    func escapes() {
        #expect(Self.lookup(#"db:5432:prefs:app:pa\:ss\\word"#) == #"pa:ss\word"#)
        #expect(Self.lookup(#"db:5432:pre\:fs:app:x"#, database: "pre:fs") == "x")
        #expect(Self.lookup(#"db:5432:prefs:\*:x"#) == nil)
        #expect(Self.lookup(#"db:5432:prefs:\*:x"#, user: "*") == "x")
        #expect(Self.lookup("db:5432:prefs:app:secret:ignored") == "secret")
        #expect(Self.lookup(#"db:5432:prefs:app:trailing\"#) == #"trailing\"#)
    }

    @Test("comments, blank lines, CRLF line ends and short lines are skipped")
    func skipped() {
        #expect(Self.lookup("# db:5432:prefs:app:commented\n\ndb:5432:prefs:app\ndb:5432:prefs:app:real\r\n") == "real")
        #expect(Self.lookup("db:5432:prefs:app:") == "")
    }

    static let url = "postgres://app@db:5432/prefs"

    @Test("--password-file beats PGPASSWORD, which beats pgpass; a URL password is used and warned about")
    func order() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/password"
        try "from-file\n".write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o600)
        let pgpass = directory.path + "/pgpass"
        try "*:*:*:*:from-pgpass\n".write(toFile: pgpass, atomically: false, encoding: .utf8)
        chmod(pgpass, 0o600)
        let environment = ["PGPASSWORD": "from-environment", "PGPASSFILE": pgpass]
        let warnings = Collected<String>()
        func resolved(_ url: String, file: String?, _ environment: [String: String]) throws -> String? {
            try PostgresPassword.resolve(for: PostgresURL(url), passwordFile: file, environment: environment,
                                         warn: { warnings.append($0) }).configuration.password
        }
        #expect(try resolved(Self.url, file: file, environment) == "from-file")
        #expect(try resolved(Self.url, file: nil, environment) == "from-environment")
        #expect(try resolved(Self.url, file: nil, ["PGPASSFILE": pgpass]) == "from-pgpass")
        #expect(try resolved(Self.url, file: nil, ["HOME": directory.path]) == nil)
        #expect(warnings.all.isEmpty)
        #expect(try resolved("postgres://app:in-url@db:5432/prefs", file: file, environment) == "in-url")
        #expect(warnings.all.count == 1)
        #expect(warnings.all.allSatisfy { !$0.contains("in-url") })
    }

    @Test("a password file open to others, missing or empty is refused; a pgpass open to others is ignored with a warning")
    func permissions() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/password"
        try "secret\n".write(toFile: file, atomically: false, encoding: .utf8)
        let url = try PostgresURL(Self.url)
        for mode: mode_t in [0o640, 0o604, 0o644] {
            chmod(file, mode)
            #expect(throws: DefaultsError.self) { try PostgresPassword.resolve(for: url, passwordFile: file, environment: [:], warn: { _ in }) }
        }
        #expect(throws: DefaultsError.self) { try PostgresPassword.resolve(for: url, passwordFile: file + ".missing", environment: [:], warn: { _ in }) }
        let empty = directory.path + "/empty"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data(), attributes: [.posixPermissions: 0o600]))
        #expect(throws: DefaultsError.self) { try PostgresPassword.resolve(for: url, passwordFile: empty, environment: [:], warn: { _ in }) }

        let pgpass = directory.path + "/pgpass"
        try "*:*:*:*:secret\n".write(toFile: pgpass, atomically: false, encoding: .utf8)
        chmod(pgpass, 0o644)
        let warnings = Collected<String>()
        let resolved = try PostgresPassword.resolve(for: url, environment: ["PGPASSFILE": pgpass], warn: { warnings.append($0) })
        #expect(resolved.configuration.password == nil)
        #expect(warnings.all.count == 1)
        #expect(warnings.all.first?.contains("group or world access") == true)
    }
}
#endif

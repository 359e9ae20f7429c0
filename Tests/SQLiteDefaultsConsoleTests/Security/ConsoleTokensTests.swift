#if Console && Prefs
import DefaultsTestSupport
import Foundation
import SQLiteDefaultsConsole
import Synchronization
import Testing
import TestScheduling

@Suite("Console tokens: the type and its file", .offThePool)
struct ConsoleTokensTests {
    /// A line of a tokens file for `name` with `role`, holding `token`.
    static func line(_ name: String, _ role: ConsoleRole = .read, prefixes: [String] = [], token: String = ConsoleTokens.newToken()) -> String {
        ConsoleTokens.Entry(name: name, role: role, prefixes: prefixes, token: token).line
    }

    /// Writes `text` to `path` with `mode`.
    static func write(_ text: String, to path: String, mode: mode_t = 0o600) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        #expect(chmod(path, mode) == 0)
    }

    @Test("A new token is sqd_ and 32 hex digits, different each time; the file keeps only its salted hash")
    func newTokens() throws {
        let tokens = (0..<50).map { _ in ConsoleTokens.newToken() }
        #expect(Set(tokens).count == 50)
        #expect(tokens.allSatisfy { $0.wholeMatch(of: /sqd_[0-9a-f]{32}/) != nil })
        var set = ConsoleTokens()
        let token = try set.add(name: "alice", role: .write, prefixes: ["feature."])
        #expect(!set.text.contains(token) && !set.text.contains(String(token.dropFirst(4))))
        #expect(set.text.wholeMatch(of: /\{"name":"alice","role":"write","prefixes":\["feature\."\],"salt":"[0-9a-f]{32}","hash":"[0-9a-f]{64}"\}\n/) != nil, "\(set.text)")
    }

    @Test("Parsing: each line's name, role and prefixes; blank lines skipped; a last line without a line end; the token authenticates its line only")
    func parses() throws {
        let alice = ConsoleTokens.newToken(), bob = ConsoleTokens.newToken()
        let text = Self.line("alice", .write, prefixes: ["feature.", "team."], token: alice) + "\n\n  \n" + Self.line("bob", .admin, token: bob)
        let tokens = try ConsoleTokens(parsing: text)
        #expect(tokens.entries.map(\.name) == ["alice", "bob"])
        #expect(tokens.entries.map(\.role) == [.write, .admin])
        #expect(tokens.entries[0].prefixes == ["feature.", "team."])
        #expect(tokens.authenticate(alice)?.name == "alice")
        #expect(tokens.authenticate(bob)?.principal == ConsolePrincipal(name: "bob", role: .admin))
        #expect(tokens.authenticate(alice + "x") == nil)
        #expect(tokens.authenticate("") == nil)
        #expect(try ConsoleTokens(parsing: tokens.text) == tokens, "written and read back")
        // No prefixes field: a writer of every key. CRLF line ends are accepted.
        let salt = String(repeating: "ab", count: 16), hash = String(repeating: "cd", count: 32)
        let plain = try ConsoleTokens(parsing: #"{"name":"ci","role":"write","salt":"\#(salt)","hash":"\#(hash)","note":"ignored"}"# + "\r\n")
        #expect(plain.entries.first?.prefixes == [])
        #expect(try ConsoleTokens(parsing: "").entries.isEmpty)
    }

    @Test("A line that is not a token is refused, naming its line", arguments: [
        ("not json", 2), (#"{"name":"x","role":"read"}"#, 2), (#"{"name":"x","role":"read","salt":"zz","hash":"00"}"#, 2),
        (#"["x"]"#, 2), (#"{"name":5,"role":"read","salt":"00000000000000000000000000000000","hash":"0000000000000000000000000000000000000000000000000000000000000000"}"#, 2),
        (#"{"name":"x","role":"read","prefixes":"feature.","salt":"00000000000000000000000000000000","hash":"0000000000000000000000000000000000000000000000000000000000000000"}"#, 2),
    ])
    func malformed(line: String, number: Int) throws {
        let text = Self.line("alice") + "\n" + line + "\n" + Self.line("bob") + "\n"
        #expect {
            try ConsoleTokens(parsing: text, source: "the tokens file 't'")
        } throws: { error in
            guard let error = error as? ConsoleTokensError else { return false }
            return error.kind == .malformed(line: number) && error.message.contains("line \(number)") && error.message.contains("'t'")
                && !error.message.contains("\n")
        }
    }

    @Test("An unknown role, a name given twice, two names with one token, a name or prefix empty or with a control character are refused")
    func refusals() throws {
        let salt = String(repeating: "00", count: 16), hash = String(repeating: "11", count: 32)
        let root = #"{"name":"x","role":"root","salt":"\#(salt)","hash":"\#(hash)"}"#
        #expect(throws: ConsoleTokensError.self) { try ConsoleTokens(parsing: Self.line("a") + "\n" + root) }
        do { _ = try ConsoleTokens(parsing: Self.line("a") + "\n" + root); Issue.record("no error") } catch {
            #expect(error.kind == .unknownRole(line: 2) && error.message.contains("'root'"), "\(error)")
        }
        do { _ = try ConsoleTokens(parsing: Self.line("alice") + "\n" + Self.line("bob") + "\n" + Self.line("alice")); Issue.record("no error") } catch {
            #expect(error.kind == .duplicateName(line: 3) && error.message.contains("'alice'"), "\(error)")
        }
        let shared = Self.line("alice", .read)
        let twin = shared.replacingOccurrences(of: #""name":"alice""#, with: #""name":"mallory""#).replacingOccurrences(of: #""role":"read""#, with: #""role":"admin""#)
        do { _ = try ConsoleTokens(parsing: shared + "\n" + twin); Issue.record("no error") } catch {
            #expect(error.kind == .duplicateToken(line: 2) && error.message.contains("two names with one token"), "\(error)")
        }
        for name in ["", "a\nb", "tab\there", "\u{7F}"] {
            #expect(throws: ConsoleTokensError.self, "\(name.debugDescription)") { try ConsoleTokens(parsing: Self.line(name)) }
            var set = ConsoleTokens()
            #expect(throws: ConsoleTokensError.self) { try set.add(name: name, role: .read) }
            #expect(throws: ConsoleTokensError.self) { try set.add(name: "ok", role: .write, prefixes: [name]) }
            #expect(set.entries.isEmpty)
        }
    }

    @Test("add refuses a taken name; remove takes a name out and refuses one that is not there")
    func addRemove() throws {
        var set = ConsoleTokens()
        let first = try set.add(name: "alice", role: .read)
        do { try set.add(name: "alice", role: .admin); Issue.record("no error") } catch { #expect(error.kind == .nameTaken) }
        #expect(set.entries.count == 1 && set.authenticate(first)?.role == .read)
        try set.add(name: "bob", role: .admin)
        try set.remove(name: "alice")
        #expect(set.entries.map(\.name) == ["bob"] && set.authenticate(first) == nil)
        do { try set.remove(name: "alice"); Issue.record("no error") } catch { #expect(error.kind == .noSuchName && error.message.contains("'alice'")) }
        #expect(set.listing == ["bob  admin"])
        #expect(set.listingJSON == #"[{"name":"bob","role":"admin","prefixes":[]}]"#)
    }

    @Test("A prefix is a plain prefix of the key's name: 'feature' matches 'featureless', 'feature.' does not; read writes nothing, admin everything")
    func prefixes() {
        let dotted = ConsolePrincipal(name: "a", role: .write, prefixes: ["feature."])
        let bare = ConsolePrincipal(name: "b", role: .write, prefixes: ["feature"])
        #expect(dotted.mayWrite(key: "feature.x") && !dotted.mayWrite(key: "featureless") && !dotted.mayWrite(key: "other") && !dotted.mayWrite(key: "feature"))
        #expect(bare.mayWrite(key: "feature.x") && bare.mayWrite(key: "featureless") && bare.mayWrite(key: "feature") && !bare.mayWrite(key: "Feature"))
        #expect(ConsolePrincipal(name: "c", role: .write).mayWrite(key: "anything"))
        #expect(!ConsolePrincipal(name: "r", role: .read).mayWrite(key: "anything"))
        #expect(ConsolePrincipal.owner.mayWrite(key: "anything") && ConsolePrincipal(name: "x", role: .admin, prefixes: ["z"]).mayWrite(key: "a"))
        // Bytes, not characters: "e" + a combining accent is not under the prefix "é".
        #expect(!ConsolePrincipal(name: "d", role: .write, prefixes: ["\u{E9}"]).mayWrite(key: "e\u{301}x"))
        #expect(dotted.mayWrite(keyBytes: Array("feature.".utf8) + [0xFF]) && !dotted.mayWrite(keyBytes: [0xFF]))
        #expect(ConsolePrincipal(name: "r", role: .read).mayUse(method: "GET") && !ConsolePrincipal(name: "r", role: .read).mayUse(method: "PUT"))
    }

    @Test("The file: a missing one is an empty set for add; saved with mode 0600; one that others can read, or not UTF-8, is refused")
    func file() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/tokens"
        #expect(throws: ConsoleTokensError.self) { try ConsoleTokens.load(from: path) }
        do { _ = try ConsoleTokens.load(from: path); Issue.record("no error") } catch { #expect(error.kind == .missing) }
        let token = try ConsoleTokens.update(at: path) { tokens throws(ConsoleTokensError) in try tokens.add(name: "alice", role: .read) }
        var status = stat()
        #expect(stat(path, &status) == 0 && status.st_mode & 0o777 == 0o600)
        #expect(try ConsoleTokens.load(from: path).authenticate(token)?.name == "alice")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["tokens"], "no temporary file left")
        for mode: mode_t in [0o644, 0o640, 0o604, 0o620, 0o660] {
            #expect(chmod(path, mode) == 0)
            do { _ = try ConsoleTokens.load(from: path); Issue.record("mode \(String(mode, radix: 8)) accepted"); Issue.record("no error") } catch {
                #expect(error.kind == .permissive && error.message.contains("0" + String(mode, radix: 8)), "\(error)")
            }
            #expect(throws: ConsoleTokensError.self) { try ConsoleTokens.update(at: path) { tokens throws(ConsoleTokensError) in try tokens.add(name: "bob", role: .read) } }
        }
        #expect(chmod(path, 0o600) == 0)
        try Data([0xFF, 0xFE]).write(to: URL(fileURLWithPath: path))
        #expect(throws: ConsoleTokensError.self) { try ConsoleTokens.load(from: path) }
    }

    @Test("A followed file: an added token is seen at once, a malformed or permissive file fails closed and is reported once, a fixed one is back")
    func followed() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/tokens"
        let alice = ConsoleTokens.newToken()
        try Self.write(Self.line("alice", token: alice), to: path)
        let reports = Mutex<[String?]>([])
        let file = try ConsoleTokensFile(path: path) { problem in reports.withLock { $0.append(problem) } }
        #expect(try file.current().get().authenticate(alice)?.name == "alice")

        let bob = try ConsoleTokens.update(at: path) { tokens throws(ConsoleTokensError) in try tokens.add(name: "bob", role: .admin) }
        #expect(try file.current().get().authenticate(bob)?.name == "bob")

        try Self.write(Self.line("alice", token: alice) + "\n{oops\n", to: path)
        for _ in 0..<3 {
            guard case .failure(let error) = file.current() else { Issue.record("a malformed file was accepted"); break }
            #expect(error.kind == .malformed(line: 2))
        }
        #expect(chmod(path, 0o644) == 0)
        try Self.write(Self.line("alice", token: alice), to: path, mode: 0o644)
        guard case .failure(let permissive) = file.current() else { Issue.record("a permissive file was accepted"); return }
        #expect(permissive.kind == .permissive)
        #expect(chmod(path, 0o600) == 0)
        #expect(try file.current().get().authenticate(alice)?.name == "alice")
        #expect(try file.current().get().authenticate(bob) == nil, "bob was not in the rewritten file")
        let seen = reports.withLock { $0 }
        #expect(seen.count == 3 && seen[0]?.contains("line 2") == true && seen[1]?.contains("0644") == true && seen[2] == nil, "\(seen)")
    }

    @Test("Following a file that is missing, others can read, or holds no token is refused at once")
    func followRefusals() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/tokens"
        #expect(throws: ConsoleTokensError.self) { try ConsoleTokensFile(path: path) }
        try Self.write("\n", to: path)
        do { _ = try ConsoleTokensFile(path: path); Issue.record("no error") } catch { #expect(error.kind == .empty) }
        try Self.write(Self.line("alice"), to: path, mode: 0o640)
        do { _ = try ConsoleTokensFile(path: path); Issue.record("no error") } catch { #expect(error.kind == .permissive) }
    }
}
#endif

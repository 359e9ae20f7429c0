#if Console
import Foundation
import PrefsFormats
import SQLiteDefaults

/// The people and services that may use a console: each a name, a ``ConsoleRole``, optional key
/// prefixes, and a salted SHA-256 hash of its token (never the token).
///
/// On disk (`prefs token add`, `prefs serve --tokens FILE`) it is one JSON object per line:
///
/// ```
/// {"name":"alice","role":"write","prefixes":["feature."],"salt":"<32 hex>","hash":"<64 hex>"}
/// ```
///
/// where `hash` is SHA-256 of the 16 salt bytes followed by the token's UTF-8 bytes. Blank lines
/// are skipped; the last line needs no line end; fields it does not know are ignored.
///
/// ```swift
/// var tokens = ConsoleTokens()
/// let token = try tokens.add(name: "alice", role: .write, prefixes: ["feature."])  // "sqd_…", shown once
/// tokens.authenticate(token)?.principal  // alice, write, ["feature."]
/// ```
public struct ConsoleTokens: Sendable, Equatable {
    /// One token: who holds it, what it may do, and its salted hash.
    public struct Entry: Sendable, Hashable {
        /// The holder's name: a person or a service. Unique in a file.
        public let name: String
        /// What it may do.
        public let role: ConsoleRole
        /// For ``ConsoleRole/write``: the key prefixes it may change (every key when empty).
        public let prefixes: [String]
        /// 16 random bytes hashed before the token.
        public let salt: [UInt8]
        /// SHA-256 of ``salt`` followed by the token's UTF-8 bytes.
        public let hash: [UInt8]

        /// An entry for `token`, hashed with a fresh random salt.
        ///
        /// ```swift
        /// let entry = ConsoleTokens.Entry(name: "deploy", role: .admin, token: ConsoleTokens.newToken())
        /// ```
        public init(name: String, role: ConsoleRole, prefixes: [String] = [], token: String) {
            var generator = SystemRandomNumberGenerator()
            let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
            self.init(name: name, role: role, prefixes: prefixes, salt: salt, hash: SHA256.hash(salt + Array(token.utf8)))
        }

        /// An entry as a tokens file holds it.
        public init(name: String, role: ConsoleRole, prefixes: [String], salt: [UInt8], hash: [UInt8]) {
            self.name = name
            self.role = role
            self.prefixes = prefixes
            self.salt = salt
            self.hash = hash
        }

        /// Who this entry's token authenticates.
        public var principal: ConsolePrincipal { ConsolePrincipal(name: name, role: role, prefixes: prefixes) }

        /// Whether `token` is this entry's token; the hashes are compared in constant time.
        public func matches(_ token: String) -> Bool {
            SHA256.constantTimeEqual(SHA256.hash(salt + Array(token.utf8)), hash)
        }

        /// The entry as one line of a tokens file (no line end).
        public var line: String {
            #"{"name":"# + ExportFormat.quote(name) + #","role":"# + ExportFormat.quote(role.rawValue)
                + #","prefixes":["# + prefixes.map(ExportFormat.quote).joined(separator: ",")
                + #"],"salt":""# + SHA256.hex(salt) + #"","hash":""# + SHA256.hex(hash) + #""}"#
        }
    }

    /// The tokens, in the file's order.
    public private(set) var entries: [Entry]

    /// An empty set: no token is accepted.
    public init() {
        entries = []
    }

    /// A set of `entries`.
    /// - Throws: ``ConsoleTokensError`` when two entries share a name or a salted hash, or a
    ///   name or prefix is empty or holds a control character.
    public init(entries: [Entry]) throws(ConsoleTokensError) {
        self.entries = []
        for (index, entry) in entries.enumerated() {
            try Self.check(entry, against: self.entries, line: index + 1, source: "the tokens")
            self.entries.append(entry)
        }
    }

    /// The tokens in `text`, a tokens file's contents.
    ///
    /// ```swift
    /// let tokens = try ConsoleTokens(parsing: text, source: "the tokens file '/etc/app/tokens'")
    /// ```
    /// - Throws: ``ConsoleTokensError`` naming `source` and the line: a line that is not a JSON
    ///   object with a string `name`, `role`, 32 hex digits of `salt`, 64 of `hash` and an
    ///   optional array of string `prefixes` (``ConsoleTokensError/Kind/malformed(line:)``), an
    ///   unknown role, a duplicate name, two names with one token, an empty name or prefix or
    ///   one with a control character.
    public init(parsing text: String, source: String = "the tokens file") throws(ConsoleTokensError) {
        entries = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.allSatisfy(\.isWhitespace) { continue }
            let entry = try Self.parse(line, number: number, source: source)
            try Self.check(entry, against: entries, line: number, source: source)
            entries.append(entry)
        }
    }

    /// The set as a tokens file's contents: one line per entry, each ending in a line end.
    public var text: String {
        entries.map { $0.line + "\n" }.joined()
    }

    /// The entry whose token is `token`, or nil. Every entry's hash is computed and compared in
    /// constant time, whichever matches.
    public func authenticate(_ token: String) -> Entry? {
        var found: Entry?
        for entry in entries where entry.matches(token) && found == nil {
            found = entry
        }
        return found
    }

    /// The entry named `name`, or nil.
    public func entry(named name: String) -> Entry? {
        entries.first { $0.name == name }
    }

    /// Adds a token for `name` and returns it: `sqd_` and 32 hex digits (128 random bits from
    /// the system's generator). Only its salted hash is kept; the token is not shown again.
    ///
    /// ```swift
    /// let token = try tokens.add(name: "ci", role: .read)
    /// ```
    /// - Throws: ``ConsoleTokensError`` when `name` is taken (``ConsoleTokensError/Kind/nameTaken``),
    ///   empty or holds a control character, or a prefix is empty or holds one.
    @discardableResult
    public mutating func add(name: String, role: ConsoleRole, prefixes: [String] = []) throws(ConsoleTokensError) -> String {
        if entry(named: name) != nil {
            throw ConsoleTokensError(.nameTaken, "a token named \(ValueFormatting.quoted(name)) exists already: remove it first to replace it")
        }
        let token = Self.newToken()
        let entry = Entry(name: name, role: role, prefixes: prefixes, token: token)
        try Self.check(entry, against: entries, line: entries.count + 1, source: "the tokens")
        entries.append(entry)
        return token
    }

    /// Removes the token named `name`.
    /// - Throws: ``ConsoleTokensError`` (``ConsoleTokensError/Kind/noSuchName``) when there is none.
    public mutating func remove(name: String) throws(ConsoleTokensError) {
        guard let index = entries.firstIndex(where: { $0.name == name }) else {
            throw ConsoleTokensError(.noSuchName, "no token is named \(ValueFormatting.quoted(name))")
        }
        entries.remove(at: index)
    }

    /// A new token: `sqd_` and 128 random bits from the system's generator (`getrandom(2)`) in hex.
    public static func newToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return "sqd_" + SHA256.hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// The listing `prefs token list` prints: one line per token, `NAME  ROLE  PREFIX, PREFIX`
    /// (the prefixes left out when there are none). Never a hash.
    public var listing: [String] {
        let width = entries.map { ValueFormatting.escaped($0.name).count }.max() ?? 0
        return entries.map { entry in
            let name = ValueFormatting.escaped(entry.name)
            let padded = name + String(repeating: " ", count: width - name.count)
            let line = padded + "  " + entry.role.rawValue.padding(toLength: 5, withPad: " ", startingAt: 0)
            return entry.prefixes.isEmpty ? line.trimmingCharacters(in: .whitespaces)
                : line + "  " + entry.prefixes.map(ValueFormatting.quoted).joined(separator: ", ")
        }
    }

    /// `prefs token list --json`: `[{"name", "role", "prefixes"}]`. Never a hash.
    public var listingJSON: String {
        "[" + entries.map { entry in
            #"{"name":"# + ExportFormat.quote(entry.name) + #","role":"# + ExportFormat.quote(entry.role.rawValue)
                + #","prefixes":["# + entry.prefixes.map(ExportFormat.quote).joined(separator: ",") + "]}"
        }.joined(separator: ",") + "]"
    }

    /// One line of a tokens file as an entry.
    private static func parse(_ line: Substring, number: Int, source: String) throws(ConsoleTokensError) -> Entry {
        let shape = "\(source), line \(number): expected {\"name\": …, \"role\": …, \"prefixes\": […], \"salt\": 32 hex digits, \"hash\": 64 hex digits}"
        guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else {
            throw ConsoleTokensError(.malformed(line: number), "\(source), line \(number): not a JSON object")
        }
        guard let name = object["name"] as? String, let roleWord = object["role"] as? String,
              let saltText = object["salt"] as? String, let hashText = object["hash"] as? String,
              let salt = SHA256.bytes(fromHex: saltText), salt.count == 16,
              let hash = SHA256.bytes(fromHex: hashText), hash.count == 32 else {
            throw ConsoleTokensError(.malformed(line: number), shape)
        }
        var prefixes: [String] = []
        if let value = object["prefixes"] {
            guard let array = value as? [Any], let strings = array as? [String] else {
                throw ConsoleTokensError(.malformed(line: number), "\(source), line \(number): \"prefixes\" must be an array of strings")
            }
            prefixes = strings
        }
        guard let role = ConsoleRole(rawValue: roleWord) else {
            throw ConsoleTokensError(.unknownRole(line: number),
                                     "\(source), line \(number): unknown role \(ValueFormatting.quoted(roleWord)) (read, write or admin)")
        }
        return Entry(name: name, role: role, prefixes: prefixes, salt: salt, hash: hash)
    }

    /// Refuses `entry` after `earlier`: a bad name or prefix, a name or a token given twice.
    private static func check(_ entry: Entry, against earlier: [Entry], line: Int, source: String) throws(ConsoleTokensError) {
        let at = source == "the tokens" ? "" : "\(source), line \(line): "
        if let problem = nameProblem(entry.name) {
            throw ConsoleTokensError(.invalidName, at + "a name \(problem)")
        }
        for prefix in entry.prefixes {
            if let problem = nameProblem(prefix) {
                throw ConsoleTokensError(.invalidName, at + "a prefix \(problem) (a writer with no prefix may write every key)")
            }
        }
        if earlier.contains(where: { $0.name == entry.name }) {
            throw ConsoleTokensError(.duplicateName(line: line), at + "the name \(ValueFormatting.quoted(entry.name)) is given twice")
        }
        if let twin = earlier.first(where: { $0.salt == entry.salt && $0.hash == entry.hash }) {
            throw ConsoleTokensError(.duplicateToken(line: line),
                                     at + "\(ValueFormatting.quoted(twin.name)) and \(ValueFormatting.quoted(entry.name)) have one token (two names with one token)")
        }
    }

    /// Why `text` cannot be a name or a prefix, or nil when it can.
    static func nameProblem(_ text: String) -> String? {
        if text.isEmpty { return "cannot be empty" }
        if text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "cannot hold a control character (\(ValueFormatting.quoted(text)))"
        }
        return nil
    }
}
#endif

import Foundation
import PrefsFormats
import SQLiteDefaults
import Testing
import TestScheduling

@Suite("Attribution, secrets in HistoryFormat and WatchFormat", .offThePool)
struct AttributionFormatTests {
    static let writer = DefaultsWriter(kind: .library, pid: 7, program: "prefs", user: "ops", host: "web-1",
                                       actor: "alice", reason: "line 1\nline \"2\" <b>x</b>")
    static let date = Date(timeIntervalSince1970: 1_795_269_600.25)

    @Test("the human form: ' for ACTOR: \"REASON\"' on one line, escaped, long reasons cut")
    func text() {
        #expect(Attribution.text(Self.writer) == #" for alice: "line 1\nline \"2\" <b>x</b>""#)
        #expect(Attribution.text(actor: "alice", reason: nil) == " for alice")
        #expect(Attribution.text(actor: nil, reason: "why") == #" because "why""#)
        #expect(Attribution.text(actor: nil, reason: nil) == "")
        let long = Attribution.text(actor: "a", reason: String(repeating: "x", count: 500))
        #expect(long == " for a: \"" + String(repeating: "x", count: Attribution.shownReasonLimit) + "…\"")
    }

    @Test("the JSON members, left out when unknown")
    func json() {
        #expect(Attribution.jsonMembers(Self.writer) == #","actor":"alice","reason":"line 1\nline \"2\" <b>x</b>""#)
        #expect(Attribution.jsonMembers(DefaultsWriter(kind: .sql)) == "")
        #expect(Attribution.jsonMembers(nil) == "")
    }

    @Test("the limits: 256 bytes of actor, 16,384 of reason")
    func limits() throws {
        try Attribution.check(actor: String(repeating: "a", count: 256), reason: String(repeating: "r", count: 16_384))
        #expect(throws: FormatError.self) { try Attribution.check(actor: String(repeating: "a", count: 257), reason: nil) }
        #expect(throws: FormatError.self) { try Attribution.check(actor: nil, reason: String(repeating: "é", count: 8_193)) }
        #expect(Attribution.actor(environment: ["PREFS_ACTOR": "bob"]) == "bob")
        #expect(Attribution.actor(environment: ["PREFS_ACTOR": ""]) == Attribution.loginName())
    }

    @Test("a secret's history entry: no value, secret and digest in JSON, a short digest in the text")
    func secretHistory() {
        let digest = String(repeating: "ab", count: 32)
        let entry = DefaultsHistoryEntry<SQLiteValue>(sequence: 9, key: "api.token", date: Self.date,
                                                      value: .secret(digest: digest), writer: Self.writer)
        let json = HistoryFormat.json(entry)
        #expect(json.contains(#""value":null,"secret":true,"digest":"\#(digest)""#), "\(json)")
        #expect(json.hasSuffix(#","actor":"alice","reason":"line 1\nline \"2\" <b>x</b>"}"#), "\(json)")
        let line = HistoryFormat.line(entry)
        #expect(line.contains(" api.token = (secret, digest abababababab) by library prefs pid 7 ops@web-1 for alice: "), "\(line)")
        let unknown = DefaultsHistoryEntry<SQLiteValue>(sequence: 9, key: "k", date: Self.date, value: .secret(digest: nil),
                                                        writer: DefaultsWriter(kind: .sql))
        #expect(HistoryFormat.line(unknown).hasSuffix(" k = (secret) by sql"))
        #expect(!HistoryFormat.json(unknown).contains("digest"))
    }

    @Test("watch: a secret's change says that it changed, not to what; a removal is a removal")
    func secretWatch() {
        let change = AnyDefaultsChange(key: "api.token", newValue: .text("PLAIN"), origin: .external, writer: Self.writer)
        let json = WatchFormat.line(for: change, receivedAt: Self.date, json: true, isSecret: true)
        #expect(!json.contains("PLAIN") && json.contains(#""value":null,"secret":true,"origin":"external""#), "\(json)")
        #expect(json.hasSuffix(#""actor":"alice","reason":"line 1\nline \"2\" <b>x</b>"}"#), "\(json)")
        let text = WatchFormat.line(for: change, receivedAt: Self.date, json: false, isSecret: true)
        #expect(text.hasSuffix(#" external api.token = (secret) for alice: "line 1\nline \"2\" <b>x</b>""#), "\(text)")
        let removal = AnyDefaultsChange(key: "api.token", newValue: nil, origin: .local)
        #expect(WatchFormat.line(for: removal, receivedAt: Self.date, json: true, isSecret: true).contains(#""value":null,"origin""#))
        #expect(WatchFormat.line(for: removal, receivedAt: Self.date, json: false, isSecret: true).hasSuffix(" api.token removed"))
        #expect(WatchFormat.line(for: change, receivedAt: Self.date, json: false).hasSuffix(" api.token = PLAIN (text) for alice: \"line 1\\nline \\\"2\\\" <b>x</b>\""))
    }
}

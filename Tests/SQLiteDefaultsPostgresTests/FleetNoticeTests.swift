#if Fleet && Prefs
import Foundation
import SQLiteDefaults
@testable import SQLiteDefaultsPostgres
import Testing
import TestScheduling

/// The notification payload: what a push's `NOTIFY` carries so that a receiver applies it
/// without a fetch. Pure: no PostgreSQL needed.
@Suite("Fleet notification payload", .offThePool)
struct FleetNoticeTests {
    static let rows: [PendingRow] = [
        PendingRow(key: "int", value: .integer(.min)),
        PendingRow(key: "real.negativeZero", value: .real(-0.0)),
        PendingRow(key: "real.subnormal", value: .real(.leastNonzeroMagnitude)),
        PendingRow(key: "real.infinity", value: .real(-.infinity)),
        PendingRow(key: "text", value: .text("héllo\u{0}wörld \"quoted\" 🎉\n")),
        PendingRow(key: "text.invalid", value: .invalidUTF8Text(Data([0xFF, 0xC3, 0x28]))),
        PendingRow(key: "blob", value: .blob(Data((0...255).map { UInt8($0) }))),
        PendingRow(key: "blob.empty", value: .blob(Data())),
        PendingRow(key: "null", value: .null),
        PendingRow(key: "deleted", value: nil),
        PendingRow(key: "key with spaces, \"quotes\" and\nnewlines", value: .integer(1)),
    ]

    /// The pushing machine, as the table's `origin` column names it.
    static let origin = "build-7:/var/lib/app/defaults.sqlite"

    /// The payload PostgreSQL would send: the function writes `VERSION MICROS ROWS`.
    static func payload(version: Int64, micros: Int64, rows: String) -> String { "\(version) \(micros) \(rows)" }

    @Test("every storage class survives the payload exactly: class and bits")
    func roundTrip() throws {
        let text = try #require(FleetNotice.rowsText(Self.rows, origin: Self.origin))
        let notice = try #require(FleetNotice(payload: Self.payload(version: 42, micros: 1_700_000_000_000_000, rows: text)))
        #expect(notice.version == 42)
        #expect(notice.committedMicroseconds == 1_700_000_000_000_000)
        let rows = try #require(notice.rows)
        #expect(rows.count == Self.rows.count)
        for (sent, received) in zip(Self.rows, rows) {
            #expect(received.key == sent.key)
            #expect(received.version == 42)
            #expect(received.origin == Self.origin, "history names the machine a carried row came from")
            #expect(SQLiteValue.isSameRow(received.value, sent.value), "\(sent.key)")
        }
        // Bits, not only values: -0.0 is not 0.0.
        if case .real(let zero) = rows[1].value { #expect(zero.sign == .minus) } else { Issue.record("not a real") }
        // NUL travels escaped: PostgreSQL refuses a payload holding it.
        #expect(!text.utf8.contains(0))
    }

    @Test("a payload of the version alone (a large push, an older library) asks for a fetch")
    func versionOnly() throws {
        let notice = try #require(FleetNotice(payload: "17"))
        #expect(notice.version == 17)
        #expect(notice.rows == nil)
    }

    @Test("rows that do not fit in a payload are not carried")
    func tooLarge() {
        #expect(FleetNotice.rowsText([PendingRow(key: "big", value: .blob(Data(count: 6_000)))], origin: Self.origin) == nil)
        #expect(FleetNotice.rowsText([PendingRow(key: "big", value: .text(String(repeating: "x", count: 8_000)))], origin: Self.origin) == nil)
        let many = (0..<1_000).map { PendingRow(key: "key.\($0)", value: .integer(Int64($0))) }
        #expect(FleetNotice.rowsText(many, origin: Self.origin) == nil)
        let fits = (0..<50).map { PendingRow(key: "key.\($0)", value: .integer(Int64($0))) }
        let text = FleetNotice.rowsText(fits, origin: Self.origin)
        #expect(text != nil)
        #expect((text?.utf8.count ?? .max) <= FleetNotice.rowsByteLimit)
    }

    @Test("what is not our payload is nil or carries no rows: the receiver fetches")
    func malformed() {
        #expect(FleetNotice(payload: "") == nil)
        #expect(FleetNotice(payload: "hello") == nil)
        #expect(FleetNotice(payload: "12 x [{}]")?.rows == nil)
        #expect(FleetNotice(payload: "12 5 not json")?.rows == nil)
        #expect(FleetNotice(payload: #"12 5 [{"k":"a","c":"i","v":"not a number"}]"#)?.rows == nil)
        #expect(FleetNotice(payload: #"12 5 [{"k":"a","c":"z"}]"#)?.rows == nil)
        #expect(FleetNotice(payload: #"12 5 [{"k":"a","c":"b","v":"%%%"}]"#)?.rows == nil)
        #expect(FleetNotice(payload: #"12 5 [{"k":"a","c":"d"}]"#)?.rows == nil, "rows without the pushing machine")
        #expect(FleetNotice(payload: #"12 5 {"o":"m:/f","r":[{"k":"a","c":"d"}]}"#)?.rows
                    == [FleetRow(key: "a", value: nil, version: 12, origin: "m:/f")])
    }
}
#endif

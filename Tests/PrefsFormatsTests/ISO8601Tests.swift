import PrefsFormats
import Testing
import TestScheduling

@Suite("ISO8601", .offThePool)
struct ISO8601Tests {
    @Test(arguments: [
        ("1970-01-01", 0.0),
        ("2024-05-01", 1_714_521_600.0),
        ("2024-05-01T10:30:00Z", 1_714_559_400.0),
        ("2024-05-01t10:30:00z", 1_714_559_400.0),
        ("2024-05-01 10:30:00Z", 1_714_559_400.0),
        ("2024-05-01T10:30Z", 1_714_559_400.0),
        ("2024-05-01T10:30:00.25Z", 1_714_559_400.25),
        ("2024-05-01T10:30:00,5Z", 1_714_559_400.5),
        ("2024-05-01T12:30:00+02:00", 1_714_559_400.0),
        ("2024-05-01T12:30:00+0200", 1_714_559_400.0),
        ("2024-05-01T12:30:00+02", 1_714_559_400.0),
        ("2024-05-01T08:00:00-02:30", 1_714_559_400.0),
        ("2024-02-29", 1_709_164_800.0),
        ("1969-12-31T23:59:59Z", -1.0),
    ])
    func parses(text: String, seconds: Double) {
        #expect(ISO8601.parse(text) == .success(seconds), "for \(text)")
    }

    @Test(arguments: [
        ("yesterday", "expected a date like 2024-05-01 or 2024-05-01T10:30:00Z"),
        ("2023-02-29", "there is no day 29 in month 2 of 2023"),
        ("2024-13-01", "there is no day 1 in month 13 of 2024"),
        ("2024-05-01T10:30:00", "add a time zone, Z for UTC or an offset like +02:00"),
        ("2024-05-01T25:00Z", "25:0:0 is not a time of day"),
        ("2024-05-01T10:30:00Q", "expected Z or an offset like +02:00 after the time"),
        ("2024-05-01T10:30:00Zjunk", "unexpected text after the date"),
        ("2024-05-01T10:30:00.Z", "expected digits after the decimal point of the seconds"),
        ("2024-05-01X", "expected a time like T10:30:00Z after the date"),
        ("2024-05-01T10:30:00+24:00", "the zone offset is out of range"),
    ])
    func refuses(text: String, reason: String) {
        #expect(ISO8601.parse(text) == .failure(ISO8601.ParseFailure(reason)), "for \(text)")
    }

    @Test func formatsUTCWithMilliseconds() {
        #expect(ISO8601.format(secondsSince1970: 0) == "1970-01-01T00:00:00.000Z")
        #expect(ISO8601.format(secondsSince1970: 1_714_559_400.125) == "2024-05-01T10:30:00.125Z")
        #expect(ISO8601.format(secondsSince1970: -0.001) == "1969-12-31T23:59:59.999Z")
        #expect(ISO8601.format(secondsSince1970: .infinity) == "inf")
    }

    @Test func civilDaysRoundTrip() {
        for days in stride(from: -800_000, through: 800_000, by: 997) {
            let (year, month, day) = ISO8601.civilFromDays(days)
            #expect(ISO8601.daysFromCivil(year: year, month: month, day: day) == days)
        }
        #expect(ISO8601.daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func formatThenParseIsExactToTheMillisecond() {
        for seconds in [0.0, 1.5, 1_714_559_400.125, -86_400.25, 4_102_444_800.5] {
            #expect(ISO8601.parse(ISO8601.format(secondsSince1970: seconds)) == .success(seconds))
        }
    }
}

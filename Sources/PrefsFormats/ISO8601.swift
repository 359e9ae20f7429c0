/// ISO 8601 dates for `write --type date` and `watch`'s timestamps, with plain calendar
/// arithmetic: no formatter objects, no locale, no time zone database, and fractional seconds
/// to whatever precision a `Double` holds (Foundation's formatter stops at milliseconds).
package enum ISO8601 {
    /// Seconds since 1970-01-01T00:00:00Z for an ISO 8601 date or date-time.
    ///
    /// Accepts `2024-05-01` (midnight UTC) and `2024-05-01T10:30:00Z`, with optional
    /// fractional seconds (`10:30:00.125Z`), seconds left out (`10:30Z`), a space or `T`
    /// between date and time, and a zone of `Z` or an offset (`+02:00`, `+0200`, `+02`).
    /// A time with no zone is refused: it would mean a different instant on every machine.
    ///
    /// - Returns: the seconds, or a failure saying why the text is not such a date.
    package static func parse(_ text: String) -> Result<Double, ParseFailure> {
        var scanner = Scanner(Array(text.utf8))
        guard let year = scanner.digits(4), scanner.skip("-"),
              let month = scanner.digits(2), scanner.skip("-"),
              let day = scanner.digits(2)
        else { return .failure(ParseFailure("expected a date like 2024-05-01 or 2024-05-01T10:30:00Z")) }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else {
            return .failure(ParseFailure("there is no day \(day) in month \(month) of \(year)"))
        }
        var seconds = Double(daysFromCivil(year: year, month: month, day: day)) * 86_400
        if scanner.atEnd { return .success(seconds) }

        guard scanner.skip("T") || scanner.skip("t") || scanner.skip(" "),
              let hour = scanner.digits(2), scanner.skip(":"), let minute = scanner.digits(2)
        else { return .failure(ParseFailure("expected a time like T10:30:00Z after the date")) }
        var second = 0
        var fraction = 0.0
        if scanner.skip(":") {
            guard let parsed = scanner.digits(2) else { return .failure(ParseFailure("expected two digits of seconds")) }
            second = parsed
            if scanner.skip(".") || scanner.skip(",") {
                let digits = scanner.digitRun()
                guard !digits.isEmpty, let value = Double("0." + digits) else {
                    return .failure(ParseFailure("expected digits after the decimal point of the seconds"))
                }
                fraction = value
            }
        }
        guard hour <= 23, minute <= 59, second <= 59 else {
            return .failure(ParseFailure("\(hour):\(minute):\(second) is not a time of day"))
        }
        seconds += Double(hour * 3600 + minute * 60 + second)

        let offset: Int
        if scanner.skip("Z") || scanner.skip("z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.digits(2) else { return .failure(ParseFailure("expected a zone offset like +02:00")) }
            var minutes = 0
            if scanner.skip(":") {
                guard let parsed = scanner.digits(2) else { return .failure(ParseFailure("expected a zone offset like +02:00")) }
                minutes = parsed
            } else if let parsed = scanner.digits(2) {
                minutes = parsed
            }
            guard hours <= 23, minutes <= 59 else { return .failure(ParseFailure("the zone offset is out of range")) }
            offset = sign * (hours * 3600 + minutes * 60)
        } else if scanner.atEnd {
            return .failure(ParseFailure("add a time zone, Z for UTC or an offset like +02:00"))
        } else {
            return .failure(ParseFailure("expected Z or an offset like +02:00 after the time"))
        }
        guard scanner.atEnd else { return .failure(ParseFailure("unexpected text after the date")) }
        return .success(seconds - Double(offset) + fraction)
    }

    /// `2026-11-21T14:03:05.123Z` for seconds since 1970 (UTC, milliseconds, rounded down).
    package static func format(secondsSince1970 seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e14 else { return "\(seconds)" }
        return format(millisecondsSince1970: Int64((seconds * 1000).rounded(.down)))
    }

    /// `2026-11-21T14:03:05.123Z` for whole milliseconds since 1970 (UTC).
    package static func format(millisecondsSince1970 milliseconds: Int64) -> String {
        let (days, millisecondOfDay) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civilFromDays(Int(days))
        let hour = millisecondOfDay / 3_600_000
        let minute = millisecondOfDay / 60_000 % 60
        let second = millisecondOfDay / 1000 % 60
        let millisecond = millisecondOfDay % 1000
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(Int(hour), 2)):\(pad(Int(minute), 2)):\(pad(Int(second), 2)).\(pad(Int(millisecond), 3))Z"
    }

    /// Why a text is not an ISO 8601 date.
    package struct ParseFailure: Error, Equatable {
        /// What is wrong, as a clause for an error message.
        package let reason: String
        /// A failure for `reason`.
        package init(_ reason: String) { self.reason = reason }
    }

    // MARK: - Calendar arithmetic (proleptic Gregorian; H. Hinnant's civil-day algorithms)

    /// Days from 1970-01-01 to a civil date (negative before it).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date `days` after 1970-01-01 (before it when negative).
    package static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    private static func floorDivision(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = a % b
        return remainder < 0 ? (a / b - 1, remainder + b) : (a / b, remainder)
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(abs(value))
        return (value < 0 ? "-" : "") + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// Reads ASCII pieces off the front of the text.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        mutating func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + count] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += count
            return value
        }

        mutating func digitRun() -> String {
            let start = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }
    }
}

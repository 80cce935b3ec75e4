/// The SigV4 timestamp forms, converted without reading a clock or using a calendar API.
///
/// `X-Amz-Date` is ISO 8601 basic format in UTC, `yyyyMMdd'T'HHmmss'Z'`, and the credential
/// scope carries its first eight characters (AWS SigV4 docs, "Elements of an AWS API
/// request signature"). Conversions use the proleptic Gregorian civil-day algorithms.
enum SigV4Time {
    /// The range a signing time may have: years 1970 through 9999, four-digit years only.
    static let validRange: ClosedRange<Int64> = 0...253_402_300_799

    /// `yyyyMMdd'T'HHmmss'Z'` for `unixSeconds` (which must be in `validRange`).
    static func amzDate(_ unixSeconds: Int64) -> String {
        let days = unixSeconds.floorDiv(86_400)
        let secondOfDay = unixSeconds - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        return pad(year, 4) + pad(month, 2) + pad(day, 2) + "T" + pad(secondOfDay / 3600, 2)
            + pad(secondOfDay / 60 % 60, 2) + pad(secondOfDay % 60, 2) + "Z"
    }

    /// Parses exactly `yyyyMMdd'T'HHmmss'Z'` with in-range fields; nil otherwise.
    static func parseAmzDate(_ text: String) -> Int64? {
        let bytes = Array(text.utf8)
        guard bytes.count == 16, bytes[8] == UInt8(ascii: "T"), bytes[15] == UInt8(ascii: "Z"),
            let year = digits(bytes[0..<4]), let month = digits(bytes[4..<6]),
            let day = digits(bytes[6..<8]), let hour = digits(bytes[9..<11]),
            let minute = digits(bytes[11..<13]), let second = digits(bytes[13..<15]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
            hour < 24, minute < 60, second < 60
        else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        return validRange.contains(seconds) ? seconds : nil
    }

    /// Days since 1970-01-01 of a civil date (H. Hinnant, "chrono-compatible low-level
    /// date algorithms", `days_from_civil`).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = y.floorDiv(400)
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (`civil_from_days`).
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = z.floorDiv(146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func digits(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}

extension Int64 {
    /// Division rounding toward negative infinity.
    fileprivate func floorDiv(_ divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}

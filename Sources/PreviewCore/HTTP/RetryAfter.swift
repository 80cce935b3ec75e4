/// Reads a `Retry-After` header value (RFC 9110 §10.2.3): delay-seconds or an HTTP-date in the
/// IMF-fixdate form every current server sends (`Sun, 06 Nov 1994 08:49:37 GMT`). Pure: the caller
/// gives `now`, so a date becomes the seconds from then.
public enum RetryAfter {
    /// Seconds to wait, never negative; nil when the value is neither form (the caller then
    /// backs off on its own schedule).
    public static func seconds(_ value: String, now: Int64) -> Double? {
        let text = value.trimmingSpacesAndTabs()
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            // More digits than any sane wait overflow Int64: read them as "very long".
            return Double(Int64(text) ?? Int64.max)
        }
        guard let date = imfFixdate(text) else { return nil }
        return Double(max(0, date - now))
    }

    /// Unix seconds of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or nil.
    static func imfFixdate(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
            parts[1].count == 2, let day = Int64(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int64(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = Int64(clock[0]),
            let minute = Int64(clock[1]), let second = Int64(clock[2]),
            (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        let days = daysFromCivil(year: year, month: Int64(monthIndex) + 1, day: day)
        return days * 86_400 + hour * 3600 + minute * 60 + second
    }

    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    private static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

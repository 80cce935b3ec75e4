import Foundation
import Glibc

/// Structured logs: one line per event on stderr, `key=value` pairs (logfmt), data stays on stdout.
public enum Log {
    public enum Level: String, Sendable { case info, warn, error }

    public static func info(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write(.info, event, fields)
    }

    public static func warn(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write(.warn, event, fields)
    }

    public static func error(_ event: String, _ fields: KeyValuePairs<String, String> = [:]) {
        write(.error, event, fields)
    }

    /// One `write(2)` per line, so lines from different threads never interleave. Every request
    /// logs a line: this path avoids Foundation's formatting (once a quarter of a health check's CPU).
    static func write(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>) {
        var line = "ts=\(timestamp()) level=\(level.rawValue) event=\(event)"
        for (key, value) in fields { line += " \(key)=\(quoted(value))" }
        line += "\n"
        // Logging is best effort: a failed or short write to stderr has nowhere to be reported.
        _ = line.withUTF8 { Glibc.write(2, $0.baseAddress, $0.count) }
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    /// `2026-12-01T16:39:45.123Z` (UTC, milliseconds).
    static func timestamp() -> String {
        var now = timespec()
        // Ignored result: CLOCK_REALTIME always exists, and `now` is a valid address.
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var time = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &time)
        let parts: [(value: Int, digits: Int, separator: UInt8)] = [
            (Int(time.tm_year) + 1900, 4, UInt8(ascii: "-")), (Int(time.tm_mon) + 1, 2, UInt8(ascii: "-")),
            (Int(time.tm_mday), 2, UInt8(ascii: "T")), (Int(time.tm_hour), 2, UInt8(ascii: ":")),
            (Int(time.tm_min), 2, UInt8(ascii: ":")), (Int(time.tm_sec), 2, UInt8(ascii: ".")),
            (now.tv_nsec / 1_000_000, 3, UInt8(ascii: "Z")),
        ]
        return String(unsafeUninitializedCapacity: 24) { buffer in
            var end = 0
            for part in parts {
                var value = part.value
                for index in stride(from: end + part.digits - 1, through: end, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                buffer[end + part.digits] = part.separator
                end += part.digits + 1
            }
            return end
        }
    }
}

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

    static func write(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>) {
        var line = "ts="
        line.reserveCapacity(160)
        appendTimestamp(to: &line)
        line += " level=" + level.rawValue + " event=" + event
        for (key, value) in fields { line += " " + key + "=" + quoted(value) }
        line += "\n"
        // One write(2) per line, so lines of concurrent requests never interleave; a failed
        // write to stderr has nowhere to be reported.
        var utf8 = line
        utf8.withUTF8 { _ = Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    /// `2026-12-01T16:30:53.823Z`, without Foundation's formatter (this runs for every request).
    private static func appendTimestamp(to line: inout String) {
        var now = timespec()
        // Ignored result: CLOCK_REALTIME always exists, and `now` is a valid address.
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var time = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &time)
        let parts: [(Int, Int, String)] = [
            (Int(time.tm_year) + 1900, 4, "-"), (Int(time.tm_mon) + 1, 2, "-"), (Int(time.tm_mday), 2, "T"),
            (Int(time.tm_hour), 2, ":"), (Int(time.tm_min), 2, ":"), (Int(time.tm_sec), 2, "."),
            (now.tv_nsec / 1_000_000, 3, "Z"),
        ]
        for (value, width, separator) in parts {
            let digits = String(value)
            if digits.count < width { line += String(repeating: "0", count: width - digits.count) }
            line += digits + separator
        }
    }
}

import Foundation

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
        var line = "ts=\(timestamp()) level=\(level.rawValue) event=\(event)"
        for (key, value) in fields { line += " \(key)=\(quoted(value))" }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    static func quoted(_ value: String) -> String {
        let needsQuotes = value.isEmpty || value.contains { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }
        guard needsQuotes else { return value }
        let escaped = value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return "\"\(escaped)\""
    }

    private static func timestamp() -> String {
        var now = timespec()
        // Ignored result: CLOCK_REALTIME always exists, and `now` is a valid address.
        _ = clock_gettime(CLOCK_REALTIME, &now)
        var time = tm()
        var seconds = now.tv_sec
        gmtime_r(&seconds, &time)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", time.tm_year + 1900, time.tm_mon + 1, time.tm_mday,
            time.tm_hour, time.tm_min, time.tm_sec, now.tv_nsec / 1_000_000)
    }
}

import Foundation
import Glibc
import PreviewCore

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

    /// One request's line (`event=request`): gathered with others and written at most
    /// 0.1 s later (`RequestLines.shared`) (or once 32 KiB wait), one `write(2)` for many
    /// lines instead of one each. A process killed with -9 loses the lines of that last
    /// moment; any other line, and the end of `serve`, writes the waiting ones first.
    public static func request(_ fields: KeyValuePairs<String, String>) {
        RequestLines.shared.append(line(.info, "request", fields))
    }

    /// Writes the request lines still waiting (at exit, and before any other line).
    public static func flushRequests() {
        RequestLines.shared.flush()
    }

    /// One line per `write(2)`, after the request lines waiting, so lines from different
    /// threads never interleave and keep their order.
    static func write(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>) {
        RequestLines.shared.flush(then: line(level, event, fields))
    }

    /// `ts=... level=... event=... key=value...\n`, built as bytes without Foundation's
    /// formatting (once a quarter of a health check's CPU).
    static func line(_ level: Level, _ event: String, _ fields: KeyValuePairs<String, String>) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(contentsOf: "ts=".utf8)
        line.append(contentsOf: timestamp().utf8)
        line.append(contentsOf: " level=".utf8)
        line.append(contentsOf: level.rawValue.utf8)
        line.append(contentsOf: " event=".utf8)
        line.append(contentsOf: event.utf8)
        for (key, value) in fields {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: quoted(value).utf8)
        }
        line.append(UInt8(ascii: "\n"))
        return line
    }

    /// The value as is when it is plain; otherwise quoted and escaped (`LogfmtValue`).
    static func quoted(_ value: String) -> String {
        LogfmtValue.quoted(value)
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

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

    /// The longest value written, in UTF-8 bytes: a longer one (a crafted path, an error text)
    /// is cut at a character boundary, with the number of bytes left out.
    static let maxValueBytes = 1024

    /// The value as is when it is plain printable ASCII without blanks, quotes or `=`, and not
    /// over `maxValueBytes`; otherwise quoted, with backslashes and quotes escaped, `\n`, `\r`,
    /// `\t`, and every other control character (C0, DEL, C1), line or paragraph separator,
    /// bidirectional control and byte-order mark as `\u` and four hex digits, so a value can
    /// neither end the line, forge another one, nor restyle a terminal.
    static func quoted(_ value: String) -> String {
        let length = value.utf8.count
        let plain =
            length > 0 && length <= maxValueBytes
            && value.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=")
            }
        if plain { return value }
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(min(length, maxValueBytes) + 32)
        var taken = 0
        for scalar in value.unicodeScalars {
            let width = UTF8.width(scalar)
            guard taken + width <= maxValueBytes else { break }
            taken += width
            escape(scalar, into: &out)
        }
        if taken < length { out.append(contentsOf: "...(\(length - taken) more bytes)".utf8) }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func escape(_ scalar: Unicode.Scalar, into out: inout [UInt8]) {
        switch scalar.value {
        case 0x5C: out.append(contentsOf: #"\\"#.utf8)
        case 0x22: out.append(contentsOf: #"\""#.utf8)
        case 0x0A: out.append(contentsOf: #"\n"#.utf8)
        case 0x0D: out.append(contentsOf: #"\r"#.utf8)
        case 0x09: out.append(contentsOf: #"\t"#.utf8)
        case 0x00..<0x20, 0x7F...0x9F, 0x2028, 0x2029, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0xFEFF:
            out.append(contentsOf: #"\u"#.utf8)
            for shift in stride(from: 12, through: 0, by: -4) {
                out.append(hexDigits[Int((scalar.value >> UInt32(shift)) & 0xF)])
            }
        default:
            UTF8.encode(scalar) { out.append($0) }
        }
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

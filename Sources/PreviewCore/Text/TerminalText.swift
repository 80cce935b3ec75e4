/// Text that a server, a hook or a receiver sent, made safe to print on a terminal. Such text
/// reaches the CLI's output in error messages, reasons, labels and URLs; raw, an ESC or C1
/// sequence in it could restyle or clear the screen or set the window title, a line break could
/// forge a line of our own, and a bidirectional override (U+202E) could make it read backwards.
public enum TerminalText {
    /// Whether `scalar` must not reach a terminal as it is: C0 controls (line breaks and tabs
    /// included), DEL, C1 controls, the line and paragraph separators (U+2028, U+2029), the
    /// bidirectional marks, embeddings, overrides and isolates (U+200E, U+200F, U+061C,
    /// U+202A–U+202E, U+2066–U+2069) and the byte-order mark. `LogfmtValue` escapes the same set.
    public static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069,
            0xFEFF:
            return true
        default:
            return false
        }
    }

    /// `text` with each unsafe character written as `\u` and four lower-case hex digits, and
    /// everything else, backslashes included, as it is: a message still reads as it was sent,
    /// and JSON text stays the same JSON (where those characters can stand only inside strings,
    /// `\uXXXX` is their escape).
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar) {
                appendEscape(scalar, to: &out)
            } else {
                UTF8.encode(scalar) { out.append($0) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `U+` and at least four upper-case hex digits (`U+0007`, `U+202E`): how a message names a
    /// character it refuses.
    public static func codePoint(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// Appends `\uXXXX` of a scalar below U+10000 (every unsafe one is).
    static func appendEscape(_ scalar: Unicode.Scalar, to out: inout [UInt8]) {
        out.append(contentsOf: #"\u"#.utf8)
        Hex.appendDigits(of: UInt8(truncatingIfNeeded: scalar.value >> 8), uppercase: false, to: &out)
        Hex.appendDigits(of: UInt8(truncatingIfNeeded: scalar.value), uppercase: false, to: &out)
    }
}

/// A value in a logfmt line (`key=value`), so that whatever a client sent cannot break a line
/// in two, forge a field or restyle a terminal: every layer that writes a log line quotes its
/// values here.
public enum LogfmtValue {
    /// The longest value written, in UTF-8 bytes: a longer one (a crafted path, an error text)
    /// is cut at a character boundary, with the number of bytes left out.
    public static let maxBytes = 1024

    /// The value as is when it is plain printable ASCII without blanks, quotes or `=`, and not
    /// over `maxBytes`; otherwise quoted, with backslashes and quotes escaped, `\n`, `\r`,
    /// `\t`, and every other character `TerminalText.isUnsafe` names (control characters, line
    /// or paragraph separators, bidirectional controls, the byte-order mark) as `\u` and four
    /// hex digits.
    public static func quoted(_ value: String) -> String {
        let length = value.utf8.count
        let plain =
            length > 0 && length <= maxBytes
            && value.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=")
            }
        if plain { return value }
        var out: [UInt8] = [UInt8(ascii: "\"")]
        out.reserveCapacity(min(length, maxBytes) + 32)
        var taken = 0
        for scalar in value.unicodeScalars {
            let width = UTF8.width(scalar)
            guard taken + width <= maxBytes else { break }
            taken += width
            escape(scalar, into: &out)
        }
        if taken < length { out.append(contentsOf: "...(\(length - taken) more bytes)".utf8) }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    private static func escape(_ scalar: Unicode.Scalar, into out: inout [UInt8]) {
        switch scalar.value {
        case 0x5C: out.append(contentsOf: #"\\"#.utf8)
        case 0x22: out.append(contentsOf: #"\""#.utf8)
        case 0x0A: out.append(contentsOf: #"\n"#.utf8)
        case 0x0D: out.append(contentsOf: #"\r"#.utf8)
        case 0x09: out.append(contentsOf: #"\t"#.utf8)
        case _ where TerminalText.isUnsafe(scalar): TerminalText.appendEscape(scalar, to: &out)
        default: UTF8.encode(scalar) { out.append($0) }
        }
    }
}

/// A value in a logfmt line (`key=value`), so that whatever a client sent cannot break a line
/// in two or forge a field: every layer that writes a log line quotes its values here.
public enum LogfmtValue {
    /// The value as is when it is plain ASCII without blanks, quotes or `=`; otherwise quoted,
    /// with backslashes and quotes escaped, `\n`, `\r` and `\t` as such, and any other control
    /// byte as `\xHH`.
    public static func quoted(_ value: String) -> String {
        let plain =
            !value.isEmpty
            && value.utf8.allSatisfy { byte in
                byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "=")
            }
        if plain { return value }
        var escaped: [UInt8] = [UInt8(ascii: "\"")]
        escaped.reserveCapacity(value.utf8.count + 8)
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "\\"), UInt8(ascii: "\""): escaped += [UInt8(ascii: "\\"), byte]
            case UInt8(ascii: "\n"): escaped += Array("\\n".utf8)
            case UInt8(ascii: "\r"): escaped += Array("\\r".utf8)
            case UInt8(ascii: "\t"): escaped += Array("\\t".utf8)
            case 0..<0x20, 0x7F:
                escaped += Array("\\x".utf8)
                Hex.appendDigits(of: byte, uppercase: false, to: &escaped)
            default: escaped.append(byte)
            }
        }
        escaped.append(UInt8(ascii: "\""))
        return String(decoding: escaped, as: UTF8.self)
    }
}

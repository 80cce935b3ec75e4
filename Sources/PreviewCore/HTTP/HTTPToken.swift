/// RFC 9110 §5.6.2 `token`: what a method or a header field name may be made of.
public enum HTTPToken {
    /// `tchar`: `A-Z a-z 0-9` and ``!#$%&'*+-.^_`|~``.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// One or more `tchar`s.
    public static func isToken(_ text: some StringProtocol) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }
}

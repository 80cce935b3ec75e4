/// Decoding `%XY` escapes (RFC 3986 §2.1) to bytes, in the two ways callers need.
///
/// - `strict`: a `%` not followed by two hex digits makes the whole text invalid (nil). For
///   what is checked or signed (SigV4 query and path, Redis URLs): a broken escape is an error,
///   never a guess.
/// - `lenient`: a broken escape is kept as it is, as browsers and form parsers do. For what is
///   only read (the API's query string): a stray `%` in `?current=5%` is not worth a 400.
///
/// `plusIsSpace` applies the form convention of query strings (`+` means a space).
public enum PercentDecoding {
    public static func strict(_ text: some StringProtocol, plusIsSpace: Bool = false) -> [UInt8]? {
        decode(Array(text.utf8), plusIsSpace: plusIsSpace, keepBrokenEscapes: false)
    }

    public static func lenient(_ text: some StringProtocol, plusIsSpace: Bool = false) -> [UInt8] {
        decode(Array(text.utf8), plusIsSpace: plusIsSpace, keepBrokenEscapes: true) ?? []
    }

    private static func decode(_ bytes: [UInt8], plusIsSpace: Bool, keepBrokenEscapes: Bool) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                if index + 2 < bytes.count, let high = Hex.digitValue(bytes[index + 1]),
                    let low = Hex.digitValue(bytes[index + 2])
                {
                    out.append(high << 4 | low)
                    index += 3
                    continue
                }
                guard keepBrokenEscapes else { return nil }
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return out
    }
}

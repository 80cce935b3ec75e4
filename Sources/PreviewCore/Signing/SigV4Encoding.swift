/// Percent-encoding for AWS Signature Version 4 (decoding is `PercentDecoding.strict`, hex is `Hex`).
///
/// Implements `UriEncode` from "Create a canonical request" (AWS SigV4 docs): every byte
/// is encoded as `%XY` (upper-case hex) except the unreserved `A-Z a-z 0-9 - . _ ~`, and
/// `/` is kept only in the object path. Works on bytes, so keys are never
/// Unicode-normalised: NFC and NFD spellings of a name are different keys, as in S3.
enum SigV4Encoding {
    /// True for the RFC 3986 unreserved characters `A-Z a-z 0-9 - . _ ~`.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `UriEncode(bytes, encodeSlash)`: `keepSlash` is true for the canonical URI only.
    static func uriEncode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, keepSlash: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount)
        for byte in bytes {
            if isUnreserved(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                Hex.appendDigits(of: byte, uppercase: true, to: &out)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes a query parameter name or value (`/` is encoded too).
    static func queryEncode(_ string: String) -> String {
        // Names and most values need no escape: the text is its own encoding.
        string.utf8.allSatisfy(isUnreserved) ? string : uriEncode(string.utf8, keepSlash: false)
    }
}

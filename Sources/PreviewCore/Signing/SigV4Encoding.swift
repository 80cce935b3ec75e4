/// Percent-encoding and hex helpers for AWS Signature Version 4.
///
/// Implements `UriEncode` from "Create a canonical request" (AWS SigV4 docs): every byte
/// is encoded as `%XY` (upper-case hex) except the unreserved `A-Z a-z 0-9 - . _ ~`, and
/// `/` is kept only in the object path. Works on bytes, so keys are never
/// Unicode-normalised: NFC and NFD spellings of a name are different keys, as in S3.
enum SigV4Encoding {
    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)
    private static let lowerHexDigits: [UInt8] = Array("0123456789abcdef".utf8)

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
                out.append(hexDigits[Int(byte >> 4)])
                out.append(hexDigits[Int(byte & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Encodes a query parameter name or value (`/` is encoded too).
    static func queryEncode(_ string: String) -> String {
        uriEncode(string.utf8, keepSlash: false)
    }

    /// Decodes `%XY` escapes to bytes; nil on a truncated or non-hex escape.
    ///
    /// `plusIsSpace` applies the form convention used in query strings (`+` means a space),
    /// so a `+` that a client left unencoded verifies as the space it stands for.
    static func percentDecode(_ string: String, plusIsSpace: Bool) -> [UInt8]? {
        let bytes = Array(string.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count,
                    let high = hexValue(bytes[index + 1]),
                    let low = hexValue(bytes[index + 2])
                else { return nil }
                out.append(high << 4 | low)
                index += 3
            } else {
                out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index += 1
            }
        }
        return out
    }

    /// Lower-case hex, as SigV4 writes hashes and signatures.
    static func hex(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(lowerHexDigits[Int(byte >> 4)])
            out.append(lowerHexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Parses lower-case hex only (the form SigV4 emits); nil otherwise.
    static func parseLowerHex(_ string: String) -> [UInt8]? {
        let bytes = Array(string.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = lowerHexValue(bytes[index]), let low = lowerHexValue(bytes[index + 1])
            else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return lowerHexValue(byte)
        }
    }

    private static func lowerHexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

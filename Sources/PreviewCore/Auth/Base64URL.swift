/// Base64url without padding, as JWS compact serialisation uses it (RFC 7515 §2 and
/// appendix C; alphabet from RFC 4648 §5).
///
/// Decoding is strict: only `A-Z a-z 0-9 - _`, no `=` padding, no whitespace, no length
/// that leaves a lone character, and unused trailing bits must be zero, so every byte
/// string has exactly one accepted encoding.
enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let b0 = UInt32(bytes[index])
            let b1 = index + 1 < bytes.count ? UInt32(bytes[index + 1]) : 0
            let b2 = index + 2 < bytes.count ? UInt32(bytes[index + 2]) : 0
            let group = b0 << 16 | b1 << 8 | b2
            let remaining = bytes.count - index
            out.append(alphabet[Int(group >> 18 & 0x3F)])
            out.append(alphabet[Int(group >> 12 & 0x3F)])
            if remaining > 1 { out.append(alphabet[Int(group >> 6 & 0x3F)]) }
            if remaining > 2 { out.append(alphabet[Int(group & 0x3F)]) }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func decode<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let chars = Array(text.utf8)
        guard chars.count % 4 != 1 else { return nil }
        var values: [UInt32] = []
        values.reserveCapacity(chars.count)
        for char in chars {
            guard let value = sextet(char) else { return nil }
            values.append(value)
        }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count * 3 / 4)
        var index = 0
        while index + 4 <= values.count {
            let group = values[index] << 18 | values[index + 1] << 12 | values[index + 2] << 6 | values[index + 3]
            out.append(UInt8(group >> 16 & 0xFF))
            out.append(UInt8(group >> 8 & 0xFF))
            out.append(UInt8(group & 0xFF))
            index += 4
        }
        switch values.count - index {
        case 2:
            guard values[index + 1] & 0x0F == 0 else { return nil }
            out.append(UInt8(values[index] << 2 | values[index + 1] >> 4))
        case 3:
            guard values[index + 2] & 0x03 == 0 else { return nil }
            let group = values[index] << 10 | values[index + 1] << 4 | values[index + 2] >> 2
            out.append(UInt8(group >> 8 & 0xFF))
            out.append(UInt8(group & 0xFF))
        default:
            break
        }
        return out
    }

    private static func sextet(_ char: UInt8) -> UInt32? {
        switch char {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(char - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(char - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(char - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}

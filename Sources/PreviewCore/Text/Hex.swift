/// Base 16 text for bytes: hashes, signatures, random IDs, `%XY` escapes, readable dumps.
public enum Hex {
    /// Two digits per byte, lower case unless `uppercase` (`[0x0f, 0xa0]` → `0fa0`).
    public static func encode<Bytes: Sequence<UInt8>>(_ bytes: Bytes, uppercase: Bool = false) -> String {
        let written = bytes.withContiguousStorageIfAvailable { buffer in
            String(unsafeUninitializedCapacity: buffer.count * 2) { out in
                for (index, byte) in buffer.enumerated() {
                    out[2 * index] = digit(byte >> 4, uppercase: uppercase)
                    out[2 * index + 1] = digit(byte & 0x0F, uppercase: uppercase)
                }
                return buffer.count * 2
            }
        }
        if let written { return written }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes { appendDigits(of: byte, uppercase: uppercase, to: &out) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the two digits of `byte` to `out` (for encoders that build bytes).
    public static func appendDigits(of byte: UInt8, uppercase: Bool, to out: inout [UInt8]) {
        out.append(digit(byte >> 4, uppercase: uppercase))
        out.append(digit(byte & 0x0F, uppercase: uppercase))
    }

    /// The ASCII digit of a value from 0 to 15.
    @inline(__always)
    static func digit(_ value: UInt8, uppercase: Bool) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + value - 10
    }

    /// Parses lower-case hex only (the form hashes and signatures are sent in); nil for an
    /// odd length or any other character.
    public static func decodeLowercase(_ string: String) -> [UInt8]? {
        let bytes = Array(string.utf8)
        guard bytes.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count / 2)
        var index = 0
        while index < bytes.count {
            guard let high = lowercaseDigitValue(bytes[index]), let low = lowercaseDigitValue(bytes[index + 1])
            else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    /// The value of a hex digit of either case; nil for any other byte.
    public static func digitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return lowercaseDigitValue(byte)
        }
    }

    private static func lowercaseDigitValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

/// Stream IDs are positive int64s (the original `int64 streamId = 1`).
public enum StreamID {
    /// Parses a decimal stream ID in its one canonical form: ASCII digits only (no sign, no
    /// spaces), no leading zero, at most 19 of them, > 0, fits Int64. `007` is refused rather
    /// than read as 7, so one stream has one spelling in paths, queries and tokens.
    public static func parse(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.first != UInt8(ascii: "0"),
            text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text), value > 0
        else { return nil }
        return value
    }

    public static func isValid(_ value: Int64) -> Bool { value > 0 }
}

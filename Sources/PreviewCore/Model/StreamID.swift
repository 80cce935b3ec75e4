/// Stream IDs are positive int64s (the original `int64 streamId = 1`).
public enum StreamID {
    /// Parses a decimal stream ID: digits only, no sign, no leading zeros beyond "0", > 0, fits Int64.
    public static func parse(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
            let value = Int64(text), value > 0
        else { return nil }
        return value
    }

    public static func isValid(_ value: Int64) -> Bool { value > 0 }
}

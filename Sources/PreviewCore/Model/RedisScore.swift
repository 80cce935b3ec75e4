/// Sorted-set scores as the integer times this service stores in them.
///
/// A score is a double, and Redis accepts `inf` and `-inf` (`ZADD key inf member`), so data
/// written by someone else can hold scores no integer can: `Int64(Double)` traps on them and on
/// anything past ±2^63. Every score that becomes an integer goes through here.
public enum RedisScore {
    /// The score of a reply (`ZSCORE`, `ZRANGE ... WITHSCORES`: "1700000000", "1.7e9", "inf",
    /// "-inf"), truncated toward zero and clamped to `Int64`'s range, so `inf` is `Int64.max`
    /// (never due) and `-inf` is `Int64.min` (due now); nil when the text is no number or NaN.
    public static func integer(_ text: some StringProtocol) -> Int64? {
        guard let value = Double(text) else { return nil }
        return integer(value)
    }

    /// `value` truncated toward zero and clamped to `Int64`'s range; nil for NaN.
    public static func integer(_ value: Double) -> Int64? {
        if value.isNaN { return nil }
        // 2^63 is the first double past Int64.max; -2^63 is exactly Int64.min.
        if value >= 0x1p63 { return .max }
        if value <= -0x1p63 { return .min }
        return Int64(value)
    }
}

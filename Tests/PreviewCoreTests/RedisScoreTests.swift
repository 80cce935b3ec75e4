import PreviewCore
import Testing

/// Sorted-set scores, as Redis writes them, turned into integer times without trapping.
@Suite struct RedisScoreTests {
    @Test(arguments: [
        ("1700000000", Int64(1_700_000_000)),
        ("1.7e9", 1_700_000_000),
        ("12.9", 12),
        ("-12.9", -12),
        ("0", 0),
        ("inf", Int64.max),
        ("+inf", Int64.max),
        ("-inf", Int64.min),
        ("1e300", Int64.max),
        ("-1e300", Int64.min),
        ("9223372036854775807", Int64.max),
        ("-9223372036854775808", Int64.min),
    ])
    func aScoreBecomesItsIntegerClampedToInt64(text: String, expected: Int64) {
        #expect(RedisScore.integer(text) == expected)
    }

    @Test(arguments: ["nan", "", "soon", "1 2"])
    func textThatIsNoNumberHasNoInteger(text: String) {
        #expect(RedisScore.integer(text) == nil)
    }

    @Test func nonFiniteDoublesAreClampedOrRefused() {
        #expect(RedisScore.integer(Double.infinity) == .max)
        #expect(RedisScore.integer(-Double.infinity) == .min)
        #expect(RedisScore.integer(Double.nan) == nil)
        #expect(RedisScore.integer(0x1p63) == .max)
        #expect(RedisScore.integer(-0x1p63) == .min)
    }
}

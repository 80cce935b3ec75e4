import PreviewCore
import Testing

/// `Retry-After` in both of its forms, and the retry policy honouring it: a server that says
/// when to come back is waited for, not hammered on the client's own schedule.
@Suite struct RetryAfterTests {
    @Test(arguments: [("0", 0.0), ("1", 1.0), (" 30 ", 30.0), ("120", 120.0)])
    func delaySecondsAreReadAsTheyAre(value: String, seconds: Double) {
        #expect(RetryAfter.seconds(value, now: 1_000) == seconds)
    }

    @Test func anHTTPDateIsTheSecondsFromNowAndNeverNegative() {
        // 1994-11-06T08:49:37Z is 784111777 (RFC 9110's example date).
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 - 90) == 90)
        #expect(RetryAfter.seconds("Sun, 06 Nov 1994 08:49:37 GMT", now: 784_111_777 + 5) == 0)
        // A leap day and the turn of a century.
        #expect(RetryAfter.seconds("Tue, 29 Feb 2000 00:00:00 GMT", now: 951_782_400) == 0)
        #expect(RetryAfter.seconds("Sat, 01 Jan 2000 00:00:10 GMT", now: 946_684_800) == 10)
    }

    @Test(arguments: [
        "", "soon", "-5", "1.5", "Sun, 06 Nov 1994 08:49:37 UTC", "Sunday, 06-Nov-94 08:49:37 GMT",
        "Sun Nov  6 08:49:37 1994", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:49:37 GMT",
    ])
    func anythingElseIsIgnored(value: String) {
        #expect(RetryAfter.seconds(value, now: 0) == nil)
    }

    @Test func aHugeDelayReadsAsVeryLongRatherThanNothing() {
        #expect(RetryAfter.seconds("99999999999999999999999", now: 0) == Double(Int64.max))
    }

    @Test func aRequestTimeoutIsRetriedLikeOtherPassingAnswers() {
        #expect(RetryPolicy.isRetryable(.status(408)))
        #expect(!RetryPolicy.isRetryable(.status(409)) && !RetryPolicy.isRetryable(.status(410)))
    }

    @Test func theWaitIsAtLeastTheServersRetryAfterEvenPastTheCap() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.1, maxDelay: 1, maxTotal: 60)
        #expect(policy.retryDelay(after: .status(503), attempt: 1, elapsed: 0, random: 1, retryAfter: 3) == 3)
        // The backoff wins when it is longer than what the server asked.
        #expect(policy.retryDelay(after: .status(503), attempt: 4, elapsed: 0, random: 1, retryAfter: 0.5) == 0.8)
        #expect(policy.retryDelay(after: .status(503), attempt: 1, elapsed: 0, random: 1, retryAfter: nil) == 0.1)
    }

    @Test func aRetryAfterPastTheTimeBudgetEndsTheRetries() {
        let policy = RetryPolicy(maxAttempts: 5, baseDelay: 0.1, maxDelay: 1, maxTotal: 60)
        #expect(policy.retryDelay(after: .status(429), attempt: 1, elapsed: 10, random: 0, retryAfter: 50) == nil)
        #expect(policy.retryDelay(after: .status(429), attempt: 1, elapsed: 10, random: 0, retryAfter: 49) == 49)
    }

    @Test func waitAppliesTheSameBoundsToAFailureTheCallerJudgedWorthRepeating() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 8, maxTotal: 5)
        #expect(policy.wait(afterAttempt: 1, elapsed: 0, random: 1) == 1)
        #expect(policy.wait(afterAttempt: 3, elapsed: 0, random: 1) == nil)
        #expect(policy.wait(afterAttempt: 2, elapsed: 3.5, random: 1) == nil)
    }
}

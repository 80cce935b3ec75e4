import PreviewCore
import Testing

/// The pure rules of talking to an object store: retry decisions and delays, XML error codes.
@Suite struct StoreRulesTests {
    @Test func fiveHundredsTooManyRequestsAndNetworkFailuresAreRetriedOtherAnswersAreNot() {
        for status in [500, 502, 503, 504, 429] { #expect(RetryPolicy.isRetryable(.status(status))) }
        for status in [200, 206, 304, 400, 403, 404, 412, 416] { #expect(!RetryPolicy.isRetryable(.status(status))) }
        #expect(RetryPolicy.isRetryable(.timeout) && RetryPolicy.isRetryable(.connect))
        #expect(RetryPolicy.isRetryable(.transfer) && !RetryPolicy.isRetryable(.fatal))
    }

    @Test func backoffDoublesUpToTheCapAndJitterPicksWithinIt() {
        let policy = RetryPolicy(maxAttempts: 10, baseDelay: 0.1, maxDelay: 1.0, maxTotal: 100)
        #expect(policy.delay(afterAttempt: 1, random: 1) == 0.1)
        #expect(policy.delay(afterAttempt: 2, random: 1) == 0.2)
        #expect(policy.delay(afterAttempt: 3, random: 1) == 0.4)
        #expect(policy.delay(afterAttempt: 5, random: 1) == 1.0)
        #expect(policy.delay(afterAttempt: 40, random: 1) == 1.0)
        #expect(policy.delay(afterAttempt: 3, random: 0.5) == 0.2)
        #expect(policy.delay(afterAttempt: 3, random: 0) == 0)
    }

    @Test func retriesStopAtTheAttemptLimitAndTheTimeBudget() {
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 1, maxDelay: 8, maxTotal: 5)
        #expect(policy.retryDelay(after: .status(503), attempt: 1, elapsed: 0, random: 1) == 1)
        #expect(policy.retryDelay(after: .status(503), attempt: 2, elapsed: 1, random: 1) == 2)
        #expect(policy.retryDelay(after: .status(503), attempt: 3, elapsed: 3, random: 1) == nil)
        #expect(policy.retryDelay(after: .timeout, attempt: 2, elapsed: 3.5, random: 1) == nil)
        #expect(policy.retryDelay(after: .status(403), attempt: 1, elapsed: 0, random: 1) == nil)
    }

    @Test func theStoresErrorCodeAndMessageAreReadFromItsXMLBody() {
        let s3 = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match &amp; so on</Message>\
            <StringToSign>AWS4-HMAC-SHA256</StringToSign></Error>
            """
        let parsed = StoreErrorBody.parse(Array(s3.utf8))
        #expect(parsed?.code == "SignatureDoesNotMatch")
        #expect(parsed?.message == "The request signature we calculated does not match & so on")
        #expect(
            StoreErrorBody.parse(Array("<Error><Code>AccessDenied</Code></Error>".utf8)) == .init(code: "AccessDenied"))
        #expect(StoreErrorBody.parse([]) == nil)
        #expect(StoreErrorBody.parse(Array("<html>bad gateway</html>".utf8)) == nil)
        #expect(StoreErrorBody.decodeEntities("a&lt;b&#62;c&#x41;&bogus;&") == "a<b>cA&bogus;&")
    }
}

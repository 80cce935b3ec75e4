import PreviewCore
import PreviewHTTPClient
import Testing

@testable import PreviewApp

/// The upload client's retry verdicts, one row per rule: what is repeated, what counts as
/// stored by an earlier attempt, what is final, and what bounds the retries in time.
@Suite struct UploadRetryRulesTests {
    let rules = UploadRetry(
        policy: RetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 15, maxTotal: 60), expiryMargin: 5)

    static func answer(_ status: Int, _ code: String? = nil, retryAfter: Double? = nil) -> UploadRetry.Attempt {
        UploadRetry.Attempt(outcome: .status(status), code: code, reason: "\(status)", retryAfter: retryAfter)
    }

    static func broken(_ outcome: RetryPolicy.Outcome) -> UploadRetry.Attempt {
        UploadRetry.Attempt(outcome: outcome, code: nil, reason: "\(outcome)", retryAfter: nil)
    }

    func put(_ result: UploadRetry.Attempt, attempt: Int = 1, secondsLeft: Double = 900) -> UploadRetry.Verdict {
        rules.judge(result, request: .put, attempt: attempt, budget: .urlSecondsLeft(secondsLeft), random: 1)
    }

    func api(_ result: UploadRetry.Attempt, _ request: UploadRetry.Request, attempt: Int = 1) -> UploadRetry.Verdict {
        rules.judge(result, request: request, attempt: attempt, budget: .elapsed(0), random: 1)
    }

    @Test func aPutFailingOnTheWayIsRetriedWithBackoff() {
        for result in [
            Self.broken(.transfer), Self.broken(.timeout), Self.broken(.connect), Self.answer(500), Self.answer(503),
            Self.answer(502), Self.answer(408), Self.answer(429),
        ] {
            #expect(put(result) == .retry(after: 0.5), "\(result)")
        }
        #expect(put(Self.broken(.transfer), attempt: 3) == .retry(after: 2))
    }

    @Test func theWaitIsAtLeastTheServersRetryAfter() {
        #expect(put(Self.answer(503, retryAfter: 7)) == .retry(after: 7))
        #expect(api(Self.answer(503, retryAfter: 7), .commit) == .retry(after: 7))
    }

    @Test func twoHundredsSucceed() {
        for status in [200, 201, 204] {
            #expect(put(Self.answer(status)) == .succeeded)
            #expect(put(Self.answer(status), attempt: 3) == .succeeded)
            #expect(api(Self.answer(status), .post) == .succeeded)
        }
    }

    @Test func aConflictOnARetryMeansAnEarlierAttemptStoredTheObject() {
        #expect(put(Self.answer(409, "object_exists"), attempt: 2) == .storedEarlier)
        #expect(put(Self.answer(412, "PreconditionFailed"), attempt: 2) == .storedEarlier)
        #expect(put(Self.answer(412), attempt: 4) == .storedEarlier)
    }

    @Test func aConflictOnTheFirstAttemptIsFinal() {
        #expect(put(Self.answer(409, "object_exists")) == .stop(.final))
        #expect(put(Self.answer(412, "PreconditionFailed")) == .stop(.final))
    }

    @Test func aWriteStillInProgressIsWaitedOutNotTakenForStored() {
        #expect(put(Self.answer(409, "upload_in_progress"), attempt: 2) == .retry(after: 1))
        #expect(put(Self.answer(409, "ConditionalRequestConflict"), attempt: 2) == .retry(after: 1))
        #expect(put(Self.answer(409, "upload_in_progress")) == .retry(after: 0.5))
    }

    @Test(arguments: [400, 401, 403, 404, 405, 411, 413, 415, 422])
    func otherClientErrorsAreFinalAtOnce(status: Int) {
        #expect(put(Self.answer(status, "x")) == .stop(.final))
        #expect(put(Self.answer(status, "x"), attempt: 2) == .stop(.final))
        #expect(api(Self.answer(status, "x"), .commit) == .stop(.final))
        #expect(api(Self.answer(status, "x"), .post) == .stop(.final))
    }

    @Test func aBadURLOrAnUnreadableFileIsFinal() {
        #expect(put(Self.broken(.fatal)) == .stop(.final))
        #expect(api(Self.broken(.fatal), .commit) == .stop(.final))
    }

    @Test func retriesEndWhenTheAttemptsAreUsedUp() {
        #expect(put(Self.answer(503), attempt: 5) == .retry(after: 8))
        #expect(put(Self.answer(503), attempt: 6) == .stop(.attemptsUsedUp))
        #expect(api(Self.answer(503), .commit, attempt: 6) == .stop(.attemptsUsedUp))
    }

    @Test func noPutRetryStartsWithinTheMarginOfItsURLsExpiry() {
        #expect(put(Self.answer(503), secondsLeft: 5.6) == .retry(after: 0.5))
        #expect(put(Self.answer(503), secondsLeft: 5.5) == .stop(.urlExpiring(secondsLeft: 5.5)))
        #expect(put(Self.broken(.transfer), secondsLeft: -10) == .stop(.urlExpiring(secondsLeft: -10)))
        #expect(put(Self.answer(503, retryAfter: 60), secondsLeft: 64) == .stop(.urlExpiring(secondsLeft: 64)))
        // A PUT's attempts may take long: elapsed time is not what bounds it.
        #expect(
            rules.judge(Self.answer(503), request: .put, attempt: 1, budget: .urlSecondsLeft(900), random: 1)
                == .retry(after: 0.5))
    }

    @Test func apiCallsStopAtTheirTimeBudget() {
        let late = rules.judge(Self.answer(503), request: .commit, attempt: 2, budget: .elapsed(59.5), random: 1)
        #expect(late == .stop(.outOfTime))
        let tooLong = rules.judge(
            Self.answer(429, retryAfter: 600), request: .post, attempt: 1, budget: .elapsed(0), random: 1)
        #expect(tooLong == .stop(.outOfTime))
    }

    @Test func aCommitIsRepeatedLikeAPutAsARepeatAnswersTheSameItem() {
        for result in [Self.broken(.transfer), Self.broken(.timeout), Self.broken(.connect), Self.answer(500)] {
            #expect(api(result, .commit) == .retry(after: 0.5), "\(result)")
        }
        #expect(api(Self.answer(409, "upload_in_progress"), .commit) == .stop(.final))
    }

    @Test func aPostIsRepeatedOnlyWhenTheServerCannotHaveIssuedURLs() {
        for result in [Self.broken(.connect), Self.answer(503), Self.answer(429)] {
            #expect(api(result, .post) == .retry(after: 0.5), "\(result)")
        }
        for result in [Self.broken(.transfer), Self.broken(.timeout), Self.answer(500), Self.answer(502)] {
            #expect(api(result, .post) == .stop(.final), "\(result)")
        }
    }

    @Test func anAnswersCodeMessageAndRetryAfterAreRead() {
        let json = HTTPClientResponse(
            status: 503, headers: HTTPHeaders([("Retry-After", "2")]),
            body: Array(#"{"code":"unavailable","message":"the store is busy"}"#.utf8))
        let fromJSON = UploadRetry.Attempt(json, now: 0)
        #expect(fromJSON.code == "unavailable" && fromJSON.retryAfter == 2)
        #expect(fromJSON.reason == "503 unavailable: the store is busy")
        let xml = HTTPClientResponse(
            status: 412, headers: HTTPHeaders(),
            body: Array("<Error><Code>PreconditionFailed</Code><Message>At least one failed</Message></Error>".utf8))
        #expect(UploadRetry.Attempt(xml, now: 0).code == "PreconditionFailed")
        #expect(UploadRetry.Attempt(xml, now: 0).reason == "412 PreconditionFailed: At least one failed")
        let bare = UploadRetry.Attempt(HTTPClientResponse(status: 502, headers: HTTPHeaders(), body: []), now: 0)
        #expect(bare.code == nil && bare.reason == "HTTP 502" && bare.retryAfter == nil)
    }

    @Test func aBrokenExchangeIsToldInAFewWords() {
        let reset = UploadRetry.Attempt(
            HTTPClientError(kind: .transfer, message: "Send failure: Connection reset by peer"), timeoutSeconds: 120)
        #expect(reset.reason == "connection reset" && reset.outcome == .transfer)
        let timeout = UploadRetry.Attempt(
            HTTPClientError(kind: .timeout, message: "Operation timed out after 2000 ms"), timeoutSeconds: 2)
        #expect(timeout.reason == "no answer within 2.0 s" && timeout.outcome == .timeout)
        let file = UploadRetry.Attempt(HTTPClientError(kind: .file, message: "open x: No such file"), timeoutSeconds: 1)
        #expect(file.outcome == .fatal)
    }
}

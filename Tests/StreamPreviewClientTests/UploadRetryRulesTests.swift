import Testing

@testable import StreamPreviewClient

/// The uploader's retry verdicts (those of `streampreview upload` too), one row per rule: what
/// is repeated, what counts as stored by an earlier attempt, what is final, and what bounds the
/// retries in time.
@Suite struct UploadRetryRulesTests {
    let rules = UploadRetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 15, maxTotal: 60, expiryMargin: 5)

    /// An attempt's end: a failure with the answer's code and `Retry-After`, or nil for a 2xx.
    struct Attempt: CustomStringConvertible {
        var failure: StreamPreviewClientError.Failure?
        var code: String?
        var retryAfter: Double?
        var description: String { "\(failure.map { "\($0)" } ?? "2xx") \(code ?? "")" }
    }

    static func answer(_ status: Int, _ code: String? = nil, retryAfter: Double? = nil) -> Attempt {
        Attempt(failure: (200..<300).contains(status) ? nil : .status(status), code: code, retryAfter: retryAfter)
    }

    static func broken(_ failure: StreamPreviewClientError.Failure) -> Attempt {
        Attempt(failure: failure)
    }

    func judge(
        _ result: Attempt, request: UploadRetryPolicy.Request, attempt: Int, budget: UploadRetryPolicy.Budget,
        random: Double
    ) -> UploadRetryPolicy.Verdict {
        rules.judge(
            result.failure, code: result.code, retryAfter: result.retryAfter, request: request, attempt: attempt,
            budget: budget, random: random)
    }

    func put(_ result: Attempt, attempt: Int = 1, secondsLeft: Double = 900) -> UploadRetryPolicy.Verdict {
        judge(result, request: .put, attempt: attempt, budget: .urlSecondsLeft(secondsLeft), random: 1)
    }

    func api(_ result: Attempt, _ request: UploadRetryPolicy.Request, attempt: Int = 1) -> UploadRetryPolicy.Verdict {
        judge(result, request: request, attempt: attempt, budget: .elapsed(0), random: 1)
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
        #expect(rules.delay(afterAttempt: 10, random: 1) == 15, "no single wait is longer than maxDelay")
    }

    @Test func noPutRetryStartsWithinTheMarginOfItsURLsExpiry() {
        #expect(put(Self.answer(503), secondsLeft: 5.6) == .retry(after: 0.5))
        #expect(put(Self.answer(503), secondsLeft: 5.5) == .stop(.urlExpiring(secondsLeft: 5.5)))
        #expect(put(Self.broken(.transfer), secondsLeft: -10) == .stop(.urlExpiring(secondsLeft: 0)))
        #expect(put(Self.answer(503, retryAfter: 60), secondsLeft: 64) == .stop(.urlExpiring(secondsLeft: 64)))
        // A PUT's attempts may take long: elapsed time is not what bounds it.
        #expect(
            judge(Self.answer(503), request: .put, attempt: 1, budget: .urlSecondsLeft(900), random: 1)
                == .retry(after: 0.5))
    }

    @Test func apiCallsStopAtTheirTimeBudget() {
        let late = judge(Self.answer(503), request: .commit, attempt: 2, budget: .elapsed(59.5), random: 1)
        #expect(late == .stop(.outOfTime(elapsed: 59.5)))
        let tooLong = judge(
            Self.answer(429, retryAfter: 600), request: .post, attempt: 1, budget: .elapsed(0), random: 1)
        #expect(tooLong == .stop(.outOfTime(elapsed: 0)))
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
}

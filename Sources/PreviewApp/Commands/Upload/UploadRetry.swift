import Foundation
import PreviewCore
import PreviewHTTPClient

/// When the upload client (`upload`, `capture`) sends a request again, and what it makes of a
/// repeated write-once PUT's conflict. The verdicts are pure (`judge`); `RetryingExchange` acts.
///
/// - PUT of an object (write-once: a stored key refuses a second PUT): a transport failure,
///   5xx, 408 or 429 is retried with backoff (`RetryPolicy`, at least `Retry-After`) while the
///   signed URL has more than `expiryMargin` to live. A 409 or 412 on a retry means an earlier
///   attempt stored the object before its answer was lost: done, and commit checks the bytes.
///   The store's "another write of this key is still running" conflicts (`upload_in_progress`,
///   S3's `ConditionalRequestConflict`) are waited out like a 503. Any other 4xx is final.
/// - Commit: the same, as a repeat answers the same item.
/// - Post (new upload URLs): not idempotent, as each one issues URLs and reserves the stream's
///   quota until they are collected. It is repeated only when the server cannot have acted on
///   it: the connection was never made, or it answered 429 or 503. After a timeout or a
///   connection broken mid-exchange it is not repeated.
struct UploadRetry: Sendable {
    /// Which rules apply.
    enum Request: Sendable, Equatable {
        case put
        case commit
        case post
    }

    /// What one attempt ended with.
    struct Attempt: Sendable, Equatable {
        /// `.status(code)` for an answer, else how the exchange broke.
        var outcome: RetryPolicy.Outcome
        /// The server's machine-readable error code (`url_expired`, `SlowDown`), if it sent one.
        var code: String?
        /// What to tell a person: `503 unavailable: …`, `connection reset`.
        var reason: String
        /// The answer's `Retry-After`, in seconds.
        var retryAfter: Double?
    }

    /// What to do after an attempt.
    enum Verdict: Sendable, Equatable {
        /// A 2xx answer.
        case succeeded
        /// A PUT retry found the object stored: an earlier attempt wrote it.
        case storedEarlier
        case retry(after: Double)
        /// Give up; the answer or failure is reported as it is.
        case stop(Stop)
    }

    enum Stop: Sendable, Equatable {
        /// An answer or failure that trying again cannot change.
        case final
        case attemptsUsedUp
        /// The next attempt would start past `maxTotal` (or the server's `Retry-After` is longer).
        case outOfTime
        /// The next attempt would start within `expiryMargin` of the URL's expiry; seconds left.
        case urlExpiring(secondsLeft: Double)
    }

    /// Attempts, backoff and the time budget. `maxTotal` bounds API calls; a PUT is bounded by
    /// its URL's expiry instead (its attempts may each take long on a slow link).
    var policy = RetryPolicy(maxAttempts: 6, baseDelay: 0.5, maxDelay: 15, maxTotal: 60)
    /// No PUT retry starts later than this many seconds before its URL expires (the request head
    /// must reach the store in time, and clocks differ a little).
    var expiryMargin = 5.0

    /// Codes of a 409 that means "another write of this key is still running": the store has not
    /// yet noticed that the earlier attempt's connection broke (local store), or S3 is settling
    /// a conditional write.
    static let inProgressCodes: Set<String> = ["upload_in_progress", "ConditionalRequestConflict"]

    /// What bounds the retries in time.
    enum Budget: Sendable, Equatable {
        /// An API call: seconds since its first attempt started, against `policy.maxTotal`.
        case elapsed(Double)
        /// A PUT: seconds its signed URL has to live now (from `expiresAt` and the clock).
        case urlSecondsLeft(Double)
    }

    /// The verdict after attempt number `attempt` (1-based) of `request`; `random` in `0..<1`
    /// picks the jitter.
    func judge(_ result: Attempt, request: Request, attempt: Int, budget: Budget, random: Double) -> Verdict {
        if case .status(let status) = result.outcome, (200..<300).contains(status) { return .succeeded }
        if request == .put, attempt > 1, case .status(let status) = result.outcome, status == 409 || status == 412,
            !Self.inProgressCodes.contains(result.code ?? "")
        {
            return .storedEarlier
        }
        guard isWorthRepeating(result, request: request) else { return .stop(.final) }
        guard attempt < policy.maxAttempts else { return .stop(.attemptsUsedUp) }
        switch budget {
        case .elapsed(let elapsed):
            guard
                let wait = policy.wait(
                    afterAttempt: attempt, elapsed: elapsed, random: random, retryAfter: result.retryAfter)
            else { return .stop(.outOfTime) }
            return .retry(after: wait)
        case .urlSecondsLeft(let secondsLeft):
            let wait = max(policy.delay(afterAttempt: attempt, random: random), result.retryAfter ?? 0)
            guard wait + expiryMargin < secondsLeft else { return .stop(.urlExpiring(secondsLeft: secondsLeft)) }
            return .retry(after: wait)
        }
    }

    private func isWorthRepeating(_ result: Attempt, request: Request) -> Bool {
        if case .status(409) = result.outcome, Self.inProgressCodes.contains(result.code ?? "") {
            return request == .put
        }
        guard request == .post else { return RetryPolicy.isRetryable(result.outcome) }
        switch result.outcome {
        case .connect: return true
        case .status(let status): return status == 429 || status == 503
        case .timeout, .transfer, .fatal: return false
        }
    }
}

extension UploadRetry.Attempt {
    /// An answer, with the server's code and message (JSON, protobuf or a store's XML).
    init(_ response: HTTPClientResponse, now: Int64) {
        let described = APIClient.describe(response)
        self.init(
            outcome: .status(response.status), code: APIClient.errorBody(response)?.code,
            reason: described.isEmpty ? "HTTP \(response.status)" : "\(response.status) \(described)",
            retryAfter: response.headers["Retry-After"].flatMap { RetryAfter.seconds($0, now: now) })
    }

    /// No answer: how the exchange broke, in a few words.
    init(_ error: HTTPClientError, timeoutSeconds: Double) {
        let reason: String
        switch error.kind {
        case .timeout: reason = "no answer within \(UploadRetry.seconds(timeoutSeconds)) s"
        case .transfer where error.message.localizedCaseInsensitiveContains("reset by peer"):
            reason = "connection reset"
        case .connect: reason = "cannot connect: \(error.message)"
        default: reason = error.message
        }
        self.init(outcome: RetryPolicy.Outcome(error), code: nil, reason: reason, retryAfter: nil)
    }
}

extension UploadRetry {
    /// `1.2` for messages: one decimal.
    static func seconds(_ value: Double) -> String { String(format: "%.1f", value) }
}

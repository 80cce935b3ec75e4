import Foundation
import PreviewCore
import PreviewHTTPClient

/// The clocks, sleep and dice of the upload client's retries: the real ones by default; tests
/// make the waits instant and the jitter fixed.
struct RetryTiming: Sendable {
    var sleep: @Sendable (Double) -> Void = { seconds in Thread.sleep(forTimeInterval: seconds) }
    /// In `0..<1`: picks the jitter.
    var random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    /// Monotonic seconds, for the time spent.
    var monotonic: @Sendable () -> Double = UploadProgressReporter.monotonicSeconds
    /// Unix seconds (the test clock in debug builds), to compare with a URL's `expiresAt`.
    var wallClock: @Sendable () -> Double = { Double(WallClock.nowMilliseconds()) / 1000 }
}

/// One request of the upload client, sent again as `UploadRetry` allows: each retry is one
/// line to the reporter (`retrying PUT of clip.mp4 in 1.2 s: connection reset (attempt 2 of 6)`),
/// and giving up is an `AppError` naming the last answer, with exit code 75 when it was of the
/// passing kind (5xx, 408, 429, timeouts, broken connections) and 1 otherwise.
struct RetryingExchange {
    var rules: UploadRetry
    var request: UploadRetry.Request
    /// `PUT of clip.mp4`, `POST /api/preview/commit`.
    var label: String
    var timing: RetryTiming
    var reporter: UploadProgressReporter
    /// A PUT's URL expiry (Unix seconds): no retry starts too close to it.
    var expiresAt: Int64?
    /// The limit of one attempt, for messages.
    var timeoutSeconds: Double

    enum Result {
        case succeeded(HTTPClientResponse)
        /// A PUT retry found the object already stored by an earlier attempt.
        case storedEarlier
    }

    /// Calls `send` with the attempt number (from 1) until an answer settles it.
    func run(_ send: (_ attempt: Int) throws -> HTTPClientResponse) throws -> Result {
        let started = timing.monotonic()
        var attempt = 0
        while true {
            attempt += 1
            let result: UploadRetry.Attempt
            var answer: HTTPClientResponse?
            do {
                let response = try send(attempt)
                answer = response
                result = UploadRetry.Attempt(response, now: Int64(timing.wallClock()))
            } catch let error as HTTPClientError {
                result = UploadRetry.Attempt(error, timeoutSeconds: timeoutSeconds)
            }
            let elapsed = timing.monotonic() - started
            let budget = expiresAt.map { UploadRetry.Budget.urlSecondsLeft(Double($0) - timing.wallClock()) }
            switch rules.judge(
                result, request: request, attempt: attempt, budget: budget ?? .elapsed(elapsed), random: timing.random()
            )
            {
            case .succeeded:
                if let answer { return .succeeded(answer) }
                throw AppError("\(label): no answer")  // unreachable: only an answer succeeds
            case .storedEarlier:
                reporter.note("\(label): \(result.reason) on attempt \(attempt): an earlier attempt stored it")
                return .storedEarlier
            case .retry(let wait):
                reporter.note(
                    "retrying \(label) in \(UploadRetry.seconds(wait)) s: \(result.reason) "
                        + "(attempt \(attempt + 1) of \(rules.policy.maxAttempts))")
                timing.sleep(wait)
            case .stop(let stop):
                reporter.endLine()
                throw AppError(
                    message(stop, result: result, attempt: attempt, elapsed: elapsed),
                    exitCode: Self.passes(result) ? .tempFailure : .failure)
            }
        }
    }

    /// Whether the last failure is of the kind that goes away (so running again later may work).
    static func passes(_ result: UploadRetry.Attempt) -> Bool {
        RetryPolicy.isRetryable(result.outcome) || UploadRetry.inProgressCodes.contains(result.code ?? "")
    }

    private func message(_ stop: UploadRetry.Stop, result: UploadRetry.Attempt, attempt: Int, elapsed: Double)
        -> String
    {
        let tries = attempt == 1 ? "1 attempt" : "\(attempt) attempts"
        switch stop {
        case .final:
            if request == .post, Self.passes(result) {
                return "\(label) failed: \(result.reason) (not repeated: the server may have issued URLs already)"
            }
            return "\(label) failed: \(result.reason)"
        case .attemptsUsedUp:
            return "\(label) failed after \(tries): \(result.reason)"
        case .outOfTime:
            let asked = result.retryAfter.map { "; the server asks to wait \(UploadRetry.seconds($0)) s" } ?? ""
            return "\(label) failed after \(tries) in \(UploadRetry.seconds(elapsed)) s: \(result.reason)\(asked)"
        case .urlExpiring(let secondsLeft):
            return "\(label) failed after \(tries): \(result.reason); not retried, as its URL expires in "
                + "\(UploadRetry.seconds(max(secondsLeft, 0))) s"
        }
    }
}

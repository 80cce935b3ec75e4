/// When and how long to wait before trying an HTTP request again: exponential backoff with
/// jitter, bounded in attempts and in total time, and never sooner than the server's
/// `Retry-After`. Pure: the caller measures elapsed time and supplies the random number, so
/// tests pin both.
///
/// Only requests that are safe to repeat go through it: the object client's HEAD, GET and
/// DELETE (each re-signed per attempt), and the upload client's write-once PUTs and commits.
public struct RetryPolicy: Sendable, Equatable {
    /// Attempts in all, the first included.
    public var maxAttempts = 4
    /// The backoff cap before the first retry; doubled for each further one.
    public var baseDelay = 0.1
    /// No single wait is longer than this.
    public var maxDelay = 2.0
    /// No retry starts once this much time (seconds, all attempts and waits) would be spent.
    public var maxTotal = 15.0

    public init(maxAttempts: Int = 4, baseDelay: Double = 0.1, maxDelay: Double = 2.0, maxTotal: Double = 15.0) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTotal = maxTotal
    }

    /// What one attempt ended with.
    public enum Outcome: Sendable, Equatable {
        case status(Int)
        case timeout
        /// Could not connect (refused, unreachable, DNS).
        case connect
        /// The connection broke after it was established (reset, truncated response).
        case transfer
        /// Anything that cannot get better by trying again (an invalid URL or request).
        case fatal
    }

    /// 5xx, 429 and 408 (the server gave up waiting for the request) are the server saying
    /// "later"; timeouts and broken connections are the network saying the same. Any other
    /// status is an answer.
    public static func isRetryable(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .status(let status): return status == 408 || status == 429 || (500...599).contains(status)
        case .timeout, .connect, .transfer: return true
        case .fatal: return false
        }
    }

    /// The wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed with a
    /// retryable outcome: "full jitter", a uniform pick in `[0, min(maxDelay, base * 2^(attempt-1))]`,
    /// so many clients retrying together spread out. `random` is in `0..<1`.
    public func delay(afterAttempt attempt: Int, random: Double) -> Double {
        let exponent = Double(max(0, min(attempt - 1, 30)))
        let cap = min(maxDelay, baseDelay * pow2(exponent))
        return cap * min(max(random, 0), 1)
    }

    /// Seconds to wait before trying again, or nil to give up: the outcome is final, the
    /// attempts are used up, or the wait would end past `maxTotal`. `retryAfter` is the
    /// server's `Retry-After` in seconds (RFC 9110 §10.2.3): the wait is at least that, even
    /// past `maxDelay`, and a server asking for more than the budget left ends the retries.
    public func retryDelay(
        after outcome: Outcome, attempt: Int, elapsed: Double, random: Double, retryAfter: Double? = nil
    ) -> Double? {
        guard Self.isRetryable(outcome) else { return nil }
        return wait(afterAttempt: attempt, elapsed: elapsed, random: random, retryAfter: retryAfter)
    }

    /// The same bounds for a failure the caller has judged worth repeating by rules of its own
    /// (an upload's `409 upload_in_progress`): the wait, or nil when the attempts are used up or
    /// the wait would end past `maxTotal`.
    public func wait(afterAttempt attempt: Int, elapsed: Double, random: Double, retryAfter: Double? = nil) -> Double? {
        guard attempt < maxAttempts else { return nil }
        let wait = max(delay(afterAttempt: attempt, random: random), max(retryAfter ?? 0, 0))
        guard elapsed + wait < maxTotal else { return nil }
        return wait
    }

    private func pow2(_ exponent: Double) -> Double {
        var value = 1.0
        for _ in 0..<Int(exponent) { value *= 2 }
        return value
    }
}

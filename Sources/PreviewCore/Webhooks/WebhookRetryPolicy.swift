/// When a webhook delivery that failed (timeout, connection error, non-2xx answer) is tried
/// again, and when it gives up: exponential backoff from `firstDelaySeconds`, doubling per failed
/// attempt up to `maxDelaySeconds`, for as long as the next attempt would start before the
/// delivery's deadline (the event's time + `maxAgeSeconds`); then the delivery is dead-lettered.
///
/// Retries are driven by Redis (a failed delivery stays pending in its consumer group, and any
/// process claims it once it has been idle long enough), so the wait is also what keeps a second
/// process off a delivery that is still in flight: never shorter than an attempt's timeout plus
/// `inFlightMarginSeconds`.
public struct WebhookRetryPolicy: Sendable, Equatable {
    public var firstDelaySeconds: Int64 = 10
    public var maxDelaySeconds: Int64 = 3600
    /// How long after the event it may still be delivered.
    public var maxAgeSeconds: Int64 = 86400
    /// The limit of one POST, connect included.
    public var attemptTimeoutSeconds: Int64 = 10
    /// Added to the attempt timeout in the shortest wait: the time an attempt that timed out
    /// takes to record its outcome in Redis.
    public static let inFlightMarginSeconds: Int64 = 2

    public init(
        firstDelaySeconds: Int64 = 10, maxDelaySeconds: Int64 = 3600, maxAgeSeconds: Int64 = 86400,
        attemptTimeoutSeconds: Int64 = 10
    ) {
        self.firstDelaySeconds = firstDelaySeconds
        self.maxDelaySeconds = maxDelaySeconds
        self.maxAgeSeconds = maxAgeSeconds
        self.attemptTimeoutSeconds = attemptTimeoutSeconds
    }

    /// Seconds from the end of the `attempts`-th failed attempt (1 = the first) to the next:
    /// first × 2^(attempts − 1), at most `maxDelaySeconds`, at least the in-flight bound.
    public func delaySeconds(afterAttempts attempts: Int64) -> Int64 {
        let exponent = min(max(attempts, 1) - 1, 40)
        let doubled = firstDelaySeconds.multipliedReportingOverflow(by: Int64(1) << exponent)
        let backoff = doubled.overflow ? maxDelaySeconds : min(doubled.partialValue, maxDelaySeconds)
        return max(backoff, attemptTimeoutSeconds + Self.inFlightMarginSeconds)
    }

    /// How long (milliseconds) a delivery attempted `attempts` times must have been idle in its
    /// consumer group before a process claims it for the next attempt (`XCLAIM ... min-idle-time`).
    public func claimIdleMilliseconds(afterAttempts attempts: Int64) -> Int64 {
        delaySeconds(afterAttempts: attempts) * 1000
    }

    /// The shortest claim idle time of all: what `XPENDING ... IDLE` filters with.
    public var minimumClaimIdleMilliseconds: Int64 { claimIdleMilliseconds(afterAttempts: 1) }

    /// What to do after the `attempts`-th attempt failed at `now`.
    public enum Next: Sendable, Equatable {
        /// Leave it pending: it is tried again from this time on.
        case retry(at: Int64)
        /// The next attempt would start past the deadline: move it to the dead letters now.
        case deadLetter
    }

    public func next(afterAttempts attempts: Int64, failedAt now: Int64, deadline: Int64) -> Next {
        let at = now + delaySeconds(afterAttempts: attempts)
        return at > deadline ? .deadLetter : .retry(at: at)
    }

    /// The deadline of a delivery of an event made at `createdAt`.
    public func deadline(createdAt: Int64) -> Int64 { createdAt + maxAgeSeconds }

    /// The times (seconds after the event) at which a delivery that always fails at once is
    /// attempted: for the documentation and the tests of the schedule.
    public func schedule() -> [Int64] {
        var times: [Int64] = [0]
        var now: Int64 = 0
        var attempts: Int64 = 1
        while case .retry(let at) = next(afterAttempts: attempts, failedAt: now, deadline: maxAgeSeconds) {
            times.append(at)
            now = at
            attempts += 1
        }
        return times
    }
}

/// The Generic Cell Rate Algorithm for one `RateLimitPolicy`, in whole microseconds: the state
/// is one number, the theoretical arrival time (TAT), when the caller's bucket is empty again.
/// A request is allowed when, after adding one `interval`, the TAT is at most `window` ahead of
/// now. The Redis script (`RateLimitScript`) runs these same steps on the server's clock; this
/// mirror computes what the reply means (remaining, reset, Retry-After) and is what the tests
/// check the arithmetic on.
public struct GCRA: Sendable, Equatable {
    /// Microseconds one request costs: the period over the count, rounded up to a whole
    /// microsecond, so the arithmetic stays in integers.
    public let interval: Int64
    /// `interval * count`: the period, give or take under `count` microseconds of rounding.
    /// Exactly `count` requests fit in it from empty.
    public let window: Int64
    public let policy: RateLimitPolicy

    public init(_ policy: RateLimitPolicy) {
        self.policy = policy
        let period = policy.periodSeconds * 1_000_000
        interval = (period + policy.count - 1) / policy.count
        window = interval * policy.count
    }

    /// One request at `now` with the stored TAT (nil: no key, an empty bucket). Returns whether
    /// it is allowed and the TAT afterwards (unchanged when refused).
    public func step(tat: Int64?, now: Int64) -> (allowed: Bool, tat: Int64) {
        let (taken, next) = step(tat: tat, now: now, want: 1)
        return (taken == 1, next)
    }

    /// Up to `want` requests at once (a lease, `RateLimitLease`): as many as fit, at least one
    /// or none. Returns how many were taken and the TAT afterwards (unchanged when none).
    public func step(tat: Int64?, now: Int64, want: Int64) -> (taken: Int64, tat: Int64) {
        let start = max(tat ?? now, now)
        let free = (window - (start - now)) / interval
        guard free >= 1 else { return (0, start) }
        let taken = min(max(1, want), free)
        return (taken, start + taken * interval)
    }

    /// What the script's reply means: whether it took any request, and `ahead`, how far the TAT
    /// after the decision is ahead of the server's now (microseconds).
    public func decision(allowed: Bool, ahead: Int64) -> RateLimitDecision {
        let ahead = max(0, ahead)
        let remaining = max(0, (window - ahead) / interval)
        let reset = Self.wholeSeconds(ahead)
        let retryAfter = allowed ? nil : max(1, Self.wholeSeconds(ahead + interval - window))
        return RateLimitDecision(allowed: allowed, remaining: remaining, resetSeconds: reset, retryAfter: retryAfter)
    }

    /// Microseconds as whole seconds, rounded up.
    static func wholeSeconds(_ microseconds: Int64) -> Int64 {
        microseconds <= 0 ? 0 : (microseconds + 999_999) / 1_000_000
    }
}

/// What the limiter decided for one request, with what its answer tells the client.
public struct RateLimitDecision: Sendable, Equatable {
    public var allowed: Bool
    /// Requests the caller may still make at once (the RateLimit field's `r`).
    public var remaining: Int64
    /// Seconds until the caller's whole quota is back (`t`), rounded up.
    public var resetSeconds: Int64
    /// Seconds until one more request is allowed, rounded up, at least 1; nil when allowed.
    public var retryAfter: Int64?

    public init(allowed: Bool, remaining: Int64, resetSeconds: Int64, retryAfter: Int64?) {
        self.allowed = allowed
        self.remaining = remaining
        self.resetSeconds = resetSeconds
        self.retryAfter = retryAfter
    }
}

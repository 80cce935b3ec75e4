/// Requests of one caller that a process has already counted in Redis and may answer without
/// asking again, for a short time. The feed reserves several at once (`size`), so a caller who
/// reads the feed often costs one Redis round trip per lease instead of one per request; the
/// shared budget is still never exceeded, since every leased request was counted. The price:
/// a caller may be refused while up to `size - 1` of its requests sit unused in another
/// replica's lease, and those not used within `lifetimeMilliseconds` are lost. Writes, uploads
/// and commits lease nothing (`size` 1): their counts are exact.
public struct RateLimitLease: Sendable, Equatable {
    /// Requests still to hand out.
    public var left: Int64
    /// What Redis said remained after the lease was taken.
    public var remaining: Int64
    /// When (milliseconds) the caller's budget is whole again, as of the lease.
    public var resetAt: Int64
    /// When (milliseconds) the unused requests are dropped.
    public var expiresAt: Int64

    public init(left: Int64, remaining: Int64, resetAt: Int64, expiresAt: Int64) {
        self.left = left
        self.remaining = remaining
        self.resetAt = resetAt
        self.expiresAt = expiresAt
    }

    /// How long a lease may be used.
    public static let lifetimeMilliseconds: Int64 = 1000
    /// The most requests one lease holds.
    public static let maxSize: Int64 = 20

    /// How many requests of `limitClass` one Redis call reserves under `policy`: for the feed,
    /// a sixtieth of the count (so at most a second's worth at a per-minute rate), 1 to
    /// `maxSize`; 1 for every other class.
    public static func size(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy) -> Int64 {
        limitClass == .feed ? min(maxSize, max(1, policy.count / 60)) : 1
    }

    /// The lease left over after the request that took it from Redis (`taken` requests, the
    /// first of them for that request itself, answered with `decision`); nil when nothing is
    /// left over.
    public static func after(taken: Int64, decision: RateLimitDecision, nowMilliseconds: Int64) -> RateLimitLease? {
        guard taken > 1 else { return nil }
        return RateLimitLease(
            left: taken - 1, remaining: decision.remaining, resetAt: nowMilliseconds + decision.resetSeconds * 1000,
            expiresAt: nowMilliseconds + lifetimeMilliseconds)
    }

    /// The decision for one more request answered from the lease, and the lease afterwards; nil
    /// when it is used up or expired (then Redis is asked).
    public func take(nowMilliseconds: Int64) -> (RateLimitDecision, RateLimitLease)? {
        guard left > 0, nowMilliseconds < expiresAt else { return nil }
        var next = self
        next.left -= 1
        let reset = max(0, (resetAt - nowMilliseconds + 999) / 1000)
        let decision = RateLimitDecision(
            allowed: true, remaining: remaining + next.left, resetSeconds: reset, retryAfter: nil)
        return (decision, next)
    }

    /// The first request's decision counts the requests the lease holds as remaining: they are
    /// the caller's to use.
    public static func firstDecision(_ decision: RateLimitDecision, taken: Int64) -> RateLimitDecision {
        var decision = decision
        decision.remaining += max(0, taken - 1)
        return decision
    }
}

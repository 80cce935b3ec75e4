/// Feed requests of one caller that this process has already counted in Redis and answers
/// without asking again, for `lifetimeMilliseconds` after they were counted. The feed is read
/// far more often than anything else, so a steady reader costs one Redis call per block of
/// requests instead of one per request.
///
/// Fixed-size: the caller's first feed request here, and its first after its lease's lifetime
/// ended, is counted alone (a lease of 1: a viewer who reads now and then reserves nothing); a
/// later request that finds the lease used up takes a block of `size` in one GCRA call (as many
/// as fit, `GCRA.step(tat:now:want:)`), is answered with the first of them and leaves the rest
/// here. Writes, uploads and commits lease nothing (`size` 1): their counts are exact.
///
/// The bounds, with R replicas. It never over-serves: a block is counted in Redis before any of
/// it is served, so the feed requests a caller is served, over all replicas, never pass what
/// Redis admitted for it, and each was admitted at most `lifetimeMilliseconds` before it is
/// served. It may refuse early: when Redis refuses a caller, each other replica may still hold
/// up to `size - 1` of its counted requests (more only when several of the caller's requests
/// found that replica's lease used up at the same moment: each took a block, and they add up);
/// the caller is served those where they are held. What a lease still holds when its lifetime
/// ends is dropped, and stays counted in Redis until the caller's budget has drained (GCRA
/// lets it back one request per `PERIOD/COUNT`).
public struct RateLimitLease: Sendable, Equatable {
    /// Requests still to hand out.
    public var left: Int64
    /// What Redis said remained after the lease was taken.
    public var remaining: Int64
    /// When (milliseconds) the caller's budget is whole again, as of the lease.
    public var resetAt: Int64
    /// When (milliseconds) the unused requests are dropped: the lease's lifetime ends.
    public var expiresAt: Int64

    public init(left: Int64, remaining: Int64, resetAt: Int64, expiresAt: Int64) {
        self.left = left
        self.remaining = remaining
        self.resetAt = resetAt
        self.expiresAt = expiresAt
    }

    /// How long a lease may be used.
    public static let lifetimeMilliseconds: Int64 = 10_000
    /// The largest block.
    public static let maxSize: Int64 = 100

    /// The block one Redis call takes for `limitClass` under `policy`: for the feed, a sixtieth
    /// of the count, 1 to `maxSize`; 1 for every other class.
    public static func size(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy) -> Int64 {
        limitClass == .feed ? min(maxSize, max(1, policy.count / 60)) : 1
    }

    /// How many requests to ask Redis for when `lease` (the caller's here; nil: none) cannot
    /// answer: 1 for the first request of a lifetime (no lease, or its lifetime ended), else
    /// the block, `size`.
    public static func want(after lease: RateLimitLease?, size: Int64, nowMilliseconds: Int64) -> Int64 {
        guard let lease, nowMilliseconds < lease.expiresAt else { return 1 }
        return size
    }

    /// The lease that follows the request which took `taken` requests from Redis (the first of
    /// them for that request itself, answered with `decision`): `left` 0 when it holds no more.
    public static func after(taken: Int64, decision: RateLimitDecision, nowMilliseconds: Int64) -> RateLimitLease {
        RateLimitLease(
            left: max(0, taken - 1), remaining: decision.remaining,
            resetAt: nowMilliseconds + decision.resetSeconds * 1000,
            expiresAt: nowMilliseconds + lifetimeMilliseconds)
    }

    /// The decision for one more request answered from the lease, and the lease afterwards; nil
    /// when it is used up or expired (then Redis is asked).
    public func take(nowMilliseconds: Int64) -> (RateLimitDecision, RateLimitLease)? {
        guard left > 0, nowMilliseconds < expiresAt else { return nil }
        var next = self
        next.left -= 1
        let decision = RateLimitDecision(
            allowed: true, remaining: remaining + next.left,
            resetSeconds: max(0, (resetAt - nowMilliseconds + 999) / 1000), retryAfter: nil)
        return (decision, next)
    }

    /// `lease` (the newer, from Redis) with what `existing` still holds added, unless its
    /// lifetime ended: two requests that found the lease used up at once both bring a block,
    /// and neither block is lost. Both then end with the sooner lifetime (they were taken a
    /// Redis round trip apart at most), so no request is served a lifetime after it was counted.
    public static func merged(_ lease: RateLimitLease, into existing: RateLimitLease?, nowMilliseconds: Int64)
        -> RateLimitLease
    {
        guard let existing, existing.left > 0, nowMilliseconds < existing.expiresAt else { return lease }
        var merged = lease
        merged.left += existing.left
        merged.expiresAt = min(lease.expiresAt, existing.expiresAt)
        return merged
    }

    /// The first request's decision counts the requests the lease holds as remaining: they are
    /// the caller's to use.
    public static func firstDecision(_ decision: RateLimitDecision, taken: Int64) -> RateLimitDecision {
        var decision = decision
        decision.remaining += max(0, taken - 1)
        return decision
    }
}

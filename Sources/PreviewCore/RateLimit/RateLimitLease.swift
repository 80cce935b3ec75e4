/// Requests of one caller that a process has already counted in Redis and may answer without
/// asking again, for a short time. The feed reserves several at once, so a caller who reads the
/// feed often costs one Redis round trip per lease instead of one per request; the shared budget
/// is still never exceeded, since every leased request was counted.
///
/// A lease is sized by how the caller used its last one in this process (`want`): 1 for a
/// caller never seen, twice the last size after a lease used up within its lifetime, and after
/// one that expired, what was used of it, halved for every further lifetime the caller stayed
/// away. So a viewer who reads the feed now and then reserves one request at a time and wastes
/// none, a steady reader who pauses starts again near its old pace, and only a caller who keeps
/// using whole leases gets larger ones, up to `cap`: a sixtieth of the count, at most
/// `maxSize`. A lease of `refillMinimumSize` or more is refilled ahead of need (`refill`) once
/// half of it is used, so a steady reader never waits on Redis. The price: a caller may be
/// refused while up to about 1.5 × `cap` of its requests sit unused in another replica's
/// lease, and those not used within `lifetimeMilliseconds` are lost. Writes, uploads and
/// commits lease nothing (`cap` 1): their counts are exact.
public struct RateLimitLease: Sendable, Equatable {
    /// Requests still to hand out.
    public var left: Int64
    /// What Redis said remained after the lease was taken.
    public var remaining: Int64
    /// When (milliseconds) the caller's budget is whole again, as of the lease.
    public var resetAt: Int64
    /// When (milliseconds) the unused requests are dropped.
    public var expiresAt: Int64
    /// How many requests Redis gave the lease, the request that took it included.
    public var size: Int64
    /// Requests answered from the lease since Redis last gave it requests.
    public var used: Int64
    /// A refill was asked for (at most one per lease; one that fails or is refused is not
    /// asked again, and the caller's next request after the lease asks Redis itself).
    public var refilling: Bool

    public init(
        left: Int64, remaining: Int64, resetAt: Int64, expiresAt: Int64, size: Int64, used: Int64 = 1,
        refilling: Bool = false
    ) {
        self.left = left
        self.remaining = remaining
        self.resetAt = resetAt
        self.expiresAt = expiresAt
        self.size = size
        self.used = used
        self.refilling = refilling
    }

    /// How long a lease may be used.
    public static let lifetimeMilliseconds: Int64 = 5000
    /// The most requests one lease holds.
    public static let maxSize: Int64 = 100
    /// The smallest lease refilled ahead of need.
    public static let refillMinimumSize: Int64 = 2

    /// The most requests of `limitClass` one Redis call may reserve under `policy`: for the
    /// feed, a sixtieth of the count, 1 to `maxSize`; 1 for every other class.
    public static func cap(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy) -> Int64 {
        limitClass == .feed ? min(maxSize, max(1, policy.count / 60)) : 1
    }

    /// How many requests the next Redis call asks for, given the caller's last lease in this
    /// process (nil: none known) and the class's `cap`.
    public static func want(after last: RateLimitLease?, cap: Int64, nowMilliseconds: Int64) -> Int64 {
        guard let last else { return 1 }
        // Only a used-up lease is asked past before it expires.
        if nowMilliseconds < last.expiresAt { return min(cap, max(1, last.size * 2)) }
        let away = (nowMilliseconds - last.expiresAt) / lifetimeMilliseconds
        return min(cap, max(1, away >= 63 ? 0 : last.used >> away))
    }

    /// The lease that follows the request which took `taken` requests from Redis (the first of
    /// them for that request itself, answered with `decision`): `left` 0 when it holds no more.
    public static func after(taken: Int64, decision: RateLimitDecision, nowMilliseconds: Int64) -> RateLimitLease {
        RateLimitLease(
            left: max(0, taken - 1), remaining: decision.remaining,
            resetAt: nowMilliseconds + decision.resetSeconds * 1000,
            expiresAt: nowMilliseconds + lifetimeMilliseconds, size: taken)
    }

    /// The decision for one more request answered from the lease, and the lease afterwards; nil
    /// when it is used up or expired (then Redis is asked).
    public func take(nowMilliseconds: Int64) -> (RateLimitDecision, RateLimitLease)? {
        guard left > 0, nowMilliseconds < expiresAt else { return nil }
        var next = self
        next.left -= 1
        next.used += 1
        let reset = max(0, (resetAt - nowMilliseconds + 999) / 1000)
        let decision = RateLimitDecision(
            allowed: true, remaining: remaining + next.left, resetSeconds: reset, retryAfter: nil)
        return (decision, next)
    }

    /// How many requests to ask Redis for ahead of need, when this lease (just taken from) is
    /// due for its refill: half used, large enough, none asked for yet; nil otherwise.
    public func refill(cap: Int64) -> Int64? {
        guard !refilling, size >= Self.refillMinimumSize, left <= size / 2 else { return nil }
        return min(cap, size * 2)
    }

    /// A refill's lease: `taken` requests, all for requests still to come, with what Redis
    /// answered for them.
    public static func ahead(taken: Int64, decision: RateLimitDecision, nowMilliseconds: Int64) -> RateLimitLease {
        var lease = after(taken: taken, decision: decision, nowMilliseconds: nowMilliseconds)
        lease.left = taken
        lease.used = 0
        return lease
    }

    /// `lease` (the newer, from Redis) with what `existing` still holds added: a refill and a
    /// request that found the lease empty may both come back, and no counted request is lost
    /// unless it expired.
    public static func merged(_ lease: RateLimitLease, into existing: RateLimitLease?, nowMilliseconds: Int64)
        -> RateLimitLease
    {
        var merged = lease
        if let existing, nowMilliseconds < existing.expiresAt { merged.left += existing.left }
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

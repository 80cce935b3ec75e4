/// Requests of one caller that a process has already counted in Redis and may answer without
/// asking again, for a short time. The feed reserves several at once, so a caller who reads the
/// feed often costs one Redis round trip per lease instead of one per request; the shared budget
/// is still never exceeded, since every leased request was counted.
///
/// A lease is sized by how the caller used its last one in this process (`want`): 1 for a
/// caller never seen, twice the last size after a lease used up within its lifetime, and after
/// one that expired, what was used of it and of the leases it was refilled from (so about the
/// caller's pace over a lifetime or two), halved for every further lifetime the caller stayed
/// away. So a viewer who reads the feed now and then reserves one request at a time and wastes
/// none, a steady reader who pauses starts again near its old pace, and only a caller who keeps
/// using whole leases gets larger ones, up to `cap`: a sixtieth of the count, at most
/// `maxSize`. A lease of `refillMinimumSize` or more is refilled ahead of need (`refill`) once
/// half of it is used, and a caller whose lease here ran out or expired is answered on credit
/// (`onCredit`) while the next one is asked for, so a request waits on Redis only when it is
/// the caller's first here or finds its credit spent. The price: a caller may be refused while
/// up to about 1.5 × `cap` of its requests sit unused in another replica's lease, those not
/// used within `lifetimeMilliseconds` are lost, and with several replicas up to `creditCap`
/// requests per ask may be served that Redis then has no budget for. Writes, uploads and
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
    /// Requests answered from the lease and the leases it was refilled from (the last one that
    /// expired or ran dry not included).
    public var used: Int64
    /// Requests asked of Redis ahead of need and not answered yet: 0 when no ask is on its way
    /// (there is at most one; one that fails or is dropped is cleared and may be asked again).
    public var asked: Int64
    /// Requests answered on credit while that ask is on its way, paid from what it brings.
    public var owed: Int64

    public init(
        left: Int64, remaining: Int64, resetAt: Int64, expiresAt: Int64, size: Int64, used: Int64 = 1,
        asked: Int64 = 0, owed: Int64 = 0
    ) {
        self.left = left
        self.remaining = remaining
        self.resetAt = resetAt
        self.expiresAt = expiresAt
        self.size = size
        self.used = used
        self.asked = asked
        self.owed = owed
    }

    /// How long a lease may be used.
    public static let lifetimeMilliseconds: Int64 = 10_000
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
        let decision = RateLimitDecision(
            allowed: true, remaining: remaining + next.left, resetSeconds: resetSeconds(nowMilliseconds),
            retryAfter: nil)
        return (decision, next)
    }

    /// Whole seconds (rounded up) until the caller's budget is whole again, as of the lease.
    private func resetSeconds(_ nowMilliseconds: Int64) -> Int64 {
        max(0, (resetAt - nowMilliseconds + 999) / 1000)
    }

    /// The most requests of one caller answered on credit while an ask is on its way: half the
    /// largest lease (0 for a class that leases nothing).
    public static func creditCap(_ cap: Int64) -> Int64 { cap / 2 }

    /// For a lease used up or expired (`take` nil): the decision for one more request answered
    /// on credit, the lease afterwards, and the requests to ask Redis for now when no ask is on
    /// its way yet (`want`, which that request's ask includes). Nil when the request must ask
    /// Redis itself: the credit would pass `creditCap`, what the ask brings, or what Redis last
    /// said the caller had to spare (0 after a refusal), so one replica never serves a request
    /// Redis would refuse.
    public func onCredit(cap: Int64, nowMilliseconds: Int64) -> (RateLimitDecision, RateLimitLease, ask: Int64?)? {
        var next = self
        var ask: Int64?
        if asked == 0 {
            let want = Self.want(after: self, cap: cap, nowMilliseconds: nowMilliseconds)
            ask = want
            next.asked = want
            // What an expired lease held is no longer the caller's.
            next.left = 0
        }
        guard next.owed < min(Self.creditCap(cap), next.asked, remaining) else { return nil }
        next.owed += 1
        let decision = RateLimitDecision(
            allowed: true, remaining: remaining - next.owed, resetSeconds: resetSeconds(nowMilliseconds),
            retryAfter: nil)
        return (decision, next, ask)
    }

    /// The lease after its ask ended without requests: none is on its way any more; after a
    /// refusal nothing is spared for credit (and what was served on credit is forgiven: Redis
    /// has no budget to pay it), after a failure what is owed stays and bounds further credit.
    public func unanswered(refused: Bool) -> RateLimitLease {
        var next = self
        next.asked = 0
        if refused {
            next.remaining = 0
            next.owed = 0
        }
        return next
    }

    /// How many requests to ask Redis for ahead of need, when this lease (just taken from) is
    /// due for its refill: half used, large enough, none asked for yet; nil otherwise.
    public func refill(cap: Int64) -> Int64? {
        guard asked == 0, size >= Self.refillMinimumSize, left <= size / 2 else { return nil }
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

    /// `lease` (the newer, from Redis) with what `existing` still holds added and what it owes
    /// paid: a refill and a request that found the lease empty may both come back, and no
    /// counted request is lost unless it expired. `answersAsk`: `lease` is what the ask on its
    /// way brought; credit it cannot pay is then forgiven, so a caller is never refused for it
    /// (else that ask is still awaited, and may pay the rest).
    public static func merged(
        _ lease: RateLimitLease, into existing: RateLimitLease?, answersAsk: Bool, nowMilliseconds: Int64
    ) -> RateLimitLease {
        var merged = lease
        guard let existing else { return merged }
        if nowMilliseconds < existing.expiresAt {
            merged.left += existing.left
            // Carried on, so a lease that expires tells how much the caller used since its
            // last one ran out, not since the last refill (which would size the next too small).
            merged.used += existing.used
        }
        let paid = min(merged.left, existing.owed)
        merged.left -= paid
        merged.used += paid
        if !answersAsk {
            // The ask still on its way may pay the rest.
            merged.asked = existing.asked
            merged.owed = existing.owed - paid
        }
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

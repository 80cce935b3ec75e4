import PreviewCore
import Testing

@Suite("rate limit settings, the GCRA arithmetic and the RateLimit fields")
struct RateLimitTests {
    @Test("CLASS=COUNT/PERIOD sets a class, CLASS=off removes it, the others keep their defaults")
    func parse() throws {
        let limits = try RateLimits.parse(["write=120/1m", "feed=off", "upload=5/30s", "commit=10/h"]).get()
        #expect(limits[.write] == RateLimitPolicy(count: 120, periodSeconds: 60))
        #expect(limits[.feed] == nil)
        #expect(limits[.upload] == RateLimitPolicy(count: 5, periodSeconds: 30))
        #expect(limits[.commit] == RateLimitPolicy(count: 10, periodSeconds: 3600))
        #expect(try RateLimits.parse([]).get() == .defaults)
        #expect(
            try RateLimits.parse(["feed=1/1s", "feed=2/2h"]).get()[.feed]
                == RateLimitPolicy(count: 2, periodSeconds: 7200))
        #expect(
            try RateLimits.parse([" write=3/24h "]).get()[.write] == RateLimitPolicy(count: 3, periodSeconds: 86400))
    }

    @Test(
        "malformed rate limits are refused with the item named",
        arguments: [
            "write", "write=", "read=1/1m", "write=0/1m", "write=-1/1m", "write=1/0s", "write=1/1d", "write=1m",
            "write=1/25h", "write=x/1m", "write=1/+1m", "write=2000000/1s", "write=1/1m/2", "WRITE=1/1m", "write=1/ 1m",
        ])
    func malformed(_ item: String) {
        guard case .failure(let error) = RateLimits.parse([item]) else {
            Issue.record("\(item) was accepted")
            return
        }
        #expect(error.item == item)
    }

    @Test("the routes fall into their classes; health, metrics and objects are not limited")
    func classes() {
        #expect(RateLimitClass(.postPreview) == .upload)
        #expect(RateLimitClass(.commitPreview) == .commit)
        #expect(RateLimitClass(.like(streamId: 1)) == .write)
        #expect(RateLimitClass(.unlike(streamId: 1)) == .write)
        #expect(RateLimitClass(.markSeen(streamId: 1)) == .write)
        #expect(RateLimitClass(.deletePreview(streamId: 1)) == .write)
        #expect(RateLimitClass(.feed) == .feed)
        #expect(RateLimitClass(.health) == nil)
        #expect(RateLimitClass(.metrics) == nil)
    }

    @Test("a burst of M requests from empty is allowed exactly L times when the period is long")
    func burst() {
        for (count, period, burst) in [(5, 3600, 12), (600, 60, 1000), (7, 60, 7), (10_000, 1, 10_000), (1, 86_400, 3)]
        {
            let gcra = GCRA(RateLimitPolicy(count: Int64(count), periodSeconds: Int64(period)))
            var tat: Int64?
            var allowed = 0
            for _ in 0..<burst {
                let step = gcra.step(tat: tat, now: 1_000_000)
                if step.allowed { allowed += 1 }
                tat = step.tat
            }
            #expect(allowed == min(count, burst), "\(count)/\(period)s")
        }
    }

    @Test("spent quota comes back one request per interval")
    func refill() {
        let gcra = GCRA(RateLimitPolicy(count: 3, periodSeconds: 3))  // one request a second
        var tat: Int64?
        for _ in 0..<3 { tat = gcra.step(tat: tat, now: 0).tat }
        #expect(gcra.step(tat: tat, now: 0).allowed == false)
        #expect(gcra.step(tat: tat, now: 999_999).allowed == false)
        let later = gcra.step(tat: tat, now: 1_000_000)
        #expect(later.allowed)
        #expect(gcra.step(tat: later.tat, now: 1_000_000).allowed == false)
        #expect(gcra.step(tat: later.tat, now: 10_000_000).allowed, "an old TAT counts as an empty bucket")
    }

    @Test("a lease takes as many requests as fit, at least one or none")
    func leaseStep() {
        let gcra = GCRA(RateLimitPolicy(count: 5, periodSeconds: 3600))
        let first = gcra.step(tat: nil, now: 0, want: 3)
        #expect(first.taken == 3)
        let second = gcra.step(tat: first.tat, now: 0, want: 3)
        #expect(second.taken == 2, "only two are left")
        let third = gcra.step(tat: second.tat, now: 0, want: 3)
        #expect(third.taken == 0 && third.tat == second.tat)
        #expect(gcra.decision(allowed: true, ahead: first.tat).remaining == 2)
    }

    @Test("a feed lease hands out the requests it holds, counting them down, until it is used up or expires")
    func leaseTake() throws {
        #expect(RateLimitLease.cap(.feed, RateLimitPolicy(count: 1200, periodSeconds: 60)) == 20)
        #expect(RateLimitLease.cap(.feed, RateLimitPolicy(count: 120, periodSeconds: 60)) == 2)
        #expect(RateLimitLease.cap(.feed, RateLimitPolicy(count: 2, periodSeconds: 3600)) == 1)
        #expect(RateLimitLease.cap(.feed, RateLimitPolicy(count: 1_000_000, periodSeconds: 1)) == 100)
        #expect(RateLimitLease.cap(.write, RateLimitPolicy(count: 1_000_000, periodSeconds: 1)) == 1)
        let redis = RateLimitDecision(allowed: true, remaining: 7, resetSeconds: 30, retryAfter: nil)
        #expect(RateLimitLease.after(taken: 1, decision: redis, nowMilliseconds: 0).left == 0)
        #expect(RateLimitLease.firstDecision(redis, taken: 3).remaining == 9)
        let lease = RateLimitLease.after(taken: 3, decision: redis, nowMilliseconds: 5000)
        #expect(
            lease
                == RateLimitLease(
                    left: 2, remaining: 7, resetAt: 35_000, expiresAt: 5000 + RateLimitLease.lifetimeMilliseconds,
                    size: 3, used: 1))
        let (second, afterSecond) = try #require(lease.take(nowMilliseconds: 5500))
        #expect(second == RateLimitDecision(allowed: true, remaining: 8, resetSeconds: 30, retryAfter: nil))
        let (third, afterThird) = try #require(afterSecond.take(nowMilliseconds: 5600))
        #expect(third.remaining == 7)
        #expect(afterThird.take(nowMilliseconds: 5700) == nil, "used up")
        #expect(afterSecond.take(nowMilliseconds: lease.expiresAt) == nil, "expired")
    }

    @Test("a lease is sized by how the caller used its last one: doubled, kept, shrunk or decayed")
    func leaseWant() {
        let redis = RateLimitDecision(allowed: true, remaining: 500, resetSeconds: 30, retryAfter: nil)
        let lifetime = RateLimitLease.lifetimeMilliseconds
        #expect(RateLimitLease.want(after: nil, cap: 20, nowMilliseconds: 0) == 1, "a new caller reserves nothing")
        var usedUp = RateLimitLease.after(taken: 8, decision: redis, nowMilliseconds: 0)
        #expect(usedUp.used == 1, "the request that took it")
        usedUp.left = 0
        usedUp.used = 8
        #expect(RateLimitLease.want(after: usedUp, cap: 20, nowMilliseconds: lifetime - 1) == 16, "used up in time")
        #expect(RateLimitLease.want(after: usedUp, cap: 12, nowMilliseconds: lifetime - 1) == 12, "never over the cap")
        #expect(RateLimitLease.want(after: usedUp, cap: 20, nowMilliseconds: lifetime) == 8, "used up, but later")
        #expect(RateLimitLease.want(after: usedUp, cap: 20, nowMilliseconds: 2 * lifetime) == 4, "away a lifetime")
        #expect(RateLimitLease.want(after: usedUp, cap: 20, nowMilliseconds: 5 * lifetime) == 1, "away long")
        #expect(RateLimitLease.want(after: usedUp, cap: 20, nowMilliseconds: Int64.max / 2) == 1)
        var partlyUsed = usedUp
        partlyUsed.left = 5
        partlyUsed.used = 3
        #expect(RateLimitLease.want(after: partlyUsed, cap: 20, nowMilliseconds: lifetime) == 3, "what was used")
        partlyUsed.used = 0
        #expect(RateLimitLease.want(after: partlyUsed, cap: 20, nowMilliseconds: lifetime) == 1, "at least one")
    }

    @Test("a lease is refilled once, when half used, and a refill adds to what is left unless it expired")
    func leaseRefill() throws {
        let redis = RateLimitDecision(allowed: true, remaining: 500, resetSeconds: 30, retryAfter: nil)
        var lease = RateLimitLease.after(taken: 8, decision: redis, nowMilliseconds: 0)  // 7 left
        #expect(lease.refill(cap: 100) == nil, "less than half used")
        for _ in 0..<3 { lease = try #require(lease.take(nowMilliseconds: 10)).1 }
        #expect(lease.left == 4)
        #expect(lease.refill(cap: 100) == 16, "half used: twice its size")
        #expect(lease.refill(cap: 10) == 10)
        lease.asked = 16
        #expect(lease.refill(cap: 100) == nil, "asked for already")
        #expect(RateLimitLease.after(taken: 1, decision: redis, nowMilliseconds: 0).refill(cap: 100) == nil)

        let refill = RateLimitLease.ahead(
            taken: 16, decision: RateLimitDecision(allowed: true, remaining: 480, resetSeconds: 31, retryAfter: nil),
            nowMilliseconds: 20)
        #expect(refill.left == 16, "every request of a refill is still to come")
        let merged = RateLimitLease.merged(refill, into: lease, answersAsk: true, nowMilliseconds: 20)
        #expect(merged.left == 20 && merged.size == 16 && merged.asked == 0 && merged.remaining == 480)
        #expect(merged.used == 4, "what was used before the refill still counts: it sizes the lease after this")
        #expect(try #require(merged.take(nowMilliseconds: 30)).0.remaining == 480 + 19)
        let late = RateLimitLease.merged(refill, into: lease, answersAsk: true, nowMilliseconds: lease.expiresAt)
        #expect(late.left == 16, "an expired lease keeps none of its own")
    }

    @Test("a lease used up or expired answers on credit while its ask is on its way, and the ask pays it")
    func leaseCredit() throws {
        let redis = RateLimitDecision(allowed: true, remaining: 500, resetSeconds: 30, retryAfter: nil)
        #expect(RateLimitLease.creditCap(20) == 10 && RateLimitLease.creditCap(1) == 0)
        var usedUp = RateLimitLease.after(taken: 4, decision: redis, nowMilliseconds: 0)
        for _ in 0..<3 { usedUp = try #require(usedUp.take(nowMilliseconds: 10)).1 }
        #expect(usedUp.take(nowMilliseconds: 20) == nil)
        let (first, afterFirst, ask) = try #require(usedUp.onCredit(cap: 20, nowMilliseconds: 20))
        #expect(ask == 8, "the next lease, twice the last, is asked for by the first request on credit")
        #expect(first == RateLimitDecision(allowed: true, remaining: 499, resetSeconds: 30, retryAfter: nil))
        #expect(afterFirst.asked == 8 && afterFirst.owed == 1)
        var credited = afterFirst
        for owed in 2...8 {
            let (decision, next, again) = try #require(credited.onCredit(cap: 20, nowMilliseconds: 30))
            #expect(again == nil, "one ask at a time")
            #expect(decision.remaining == Int64(500 - owed))
            credited = next
        }
        #expect(credited.onCredit(cap: 20, nowMilliseconds: 30) == nil, "no more credit than the ask brings")
        #expect(credited.onCredit(cap: 12, nowMilliseconds: 30) == nil)

        let brought = RateLimitLease.ahead(taken: 8, decision: redis, nowMilliseconds: 20)
        let paid = RateLimitLease.merged(brought, into: credited, answersAsk: true, nowMilliseconds: 40)
        #expect(paid.left == 0 && paid.owed == 0 && paid.used == 12 && paid.asked == 0, "the ask paid every credit")
        let short = RateLimitLease.ahead(taken: 5, decision: redis, nowMilliseconds: 20)
        let forgiven = RateLimitLease.merged(short, into: credited, answersAsk: true, nowMilliseconds: 40)
        #expect(forgiven.left == 0 && forgiven.owed == 0, "what the ask could not pay is forgiven")
        let meanwhile = RateLimitLease.merged(short, into: credited, answersAsk: false, nowMilliseconds: 40)
        #expect(
            meanwhile.left == 0 && meanwhile.owed == 3 && meanwhile.asked == 8, "the ask on its way may pay the rest")

        // Spare budget bounds credit: what Redis last said the caller had left.
        var scant = usedUp
        scant.remaining = 2
        let (_, scant1, _) = try #require(scant.onCredit(cap: 20, nowMilliseconds: 20))
        let (_, scant2, _) = try #require(scant1.onCredit(cap: 20, nowMilliseconds: 20))
        #expect(scant2.onCredit(cap: 20, nowMilliseconds: 20) == nil)

        // An expired lease: what it held is dropped and the ask is sized by what was used.
        var expired = RateLimitLease.after(taken: 8, decision: redis, nowMilliseconds: 0)
        expired = try #require(expired.take(nowMilliseconds: 10)).1
        let (_, afterExpiry, sized) = try #require(expired.onCredit(cap: 20, nowMilliseconds: expired.expiresAt))
        #expect(sized == 2 && afterExpiry.left == 0 && afterExpiry.owed == 1)

        let refused = credited.unanswered(refused: true)
        #expect(refused.asked == 0 && refused.owed == 0 && refused.remaining == 0)
        #expect(refused.onCredit(cap: 20, nowMilliseconds: 50) == nil, "after a refusal Redis is asked")
        let failed = credited.unanswered(refused: false)
        #expect(failed.asked == 0 && failed.owed == 8, "after a failure what was owed still bounds credit")
        #expect(failed.onCredit(cap: 20, nowMilliseconds: 50) == nil)
        let failedEarly = afterFirst.unanswered(refused: false)
        let (_, retried, askAgain) = try #require(failedEarly.onCredit(cap: 20, nowMilliseconds: 50))
        #expect(askAgain == 8 && retried.owed == 2, "a failed ask is asked again")
    }

    @Test("the decision tells what remains, when the quota is whole again, and when to retry")
    func decision() {
        let gcra = GCRA(RateLimitPolicy(count: 120, periodSeconds: 60))  // 0.5 s a request
        #expect(gcra.interval == 500_000)
        let first = gcra.decision(allowed: true, ahead: 500_000)
        #expect(first == RateLimitDecision(allowed: true, remaining: 119, resetSeconds: 1, retryAfter: nil))
        let last = gcra.decision(allowed: true, ahead: 60_000_000)
        #expect(last == RateLimitDecision(allowed: true, remaining: 0, resetSeconds: 60, retryAfter: nil))
        let refused = gcra.decision(allowed: false, ahead: 59_800_000)
        #expect(refused == RateLimitDecision(allowed: false, remaining: 0, resetSeconds: 60, retryAfter: 1))
        let slow = GCRA(RateLimitPolicy(count: 2, periodSeconds: 3600))
        let refusedSlow = slow.decision(allowed: false, ahead: 3_600_000_000)
        #expect(refusedSlow.retryAfter == 1800, "one interval of a 2/1h policy")
        #expect(slow.decision(allowed: false, ahead: 3_599_000_000).retryAfter == 1799)
        #expect(slow.decision(allowed: false, ahead: 3_598_999_999).retryAfter == 1799, "rounded up")
    }

    @Test("the fields are Structured Field lists named after the class")
    func fields() {
        let policy = RateLimitPolicy(count: 120, periodSeconds: 60)
        #expect(RateLimitFields.policy(.write, policy) == #""write";q=120;w=60"#)
        let decision = RateLimitDecision(allowed: true, remaining: 57, resetSeconds: 12, retryAfter: nil)
        #expect(RateLimitFields.limit(.write, decision) == #""write";r=57;t=12"#)
        for (remaining, reset) in [(0, 0), (9, 10), (1_000_000, 86400), (Int64.max, Int64.max), (Int64.min, -1)] {
            let decision = RateLimitDecision(allowed: true, remaining: remaining, resetSeconds: reset, retryAfter: nil)
            #expect(RateLimitFields.limit(.feed, decision) == "\"feed\";r=\(remaining);t=\(reset)")
        }
    }
}

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

    @Test("a feed lease is a fixed block that hands out the requests it holds until used up or expired")
    func leaseTake() throws {
        #expect(RateLimitLease.size(.feed, RateLimitPolicy(count: 1200, periodSeconds: 60)) == 20)
        #expect(RateLimitLease.size(.feed, RateLimitPolicy(count: 120, periodSeconds: 60)) == 2)
        #expect(RateLimitLease.size(.feed, RateLimitPolicy(count: 2, periodSeconds: 3600)) == 1)
        #expect(RateLimitLease.size(.feed, RateLimitPolicy(count: 1_000_000, periodSeconds: 1)) == 100)
        #expect(RateLimitLease.size(.write, RateLimitPolicy(count: 1_000_000, periodSeconds: 1)) == 1)
        let redis = RateLimitDecision(allowed: true, remaining: 7, resetSeconds: 30, retryAfter: nil)
        #expect(RateLimitLease.after(taken: 1, decision: redis, nowMilliseconds: 0).left == 0)
        #expect(RateLimitLease.firstDecision(redis, taken: 3).remaining == 9)
        let lease = RateLimitLease.after(taken: 3, decision: redis, nowMilliseconds: 5000)
        #expect(
            lease
                == RateLimitLease(
                    left: 2, remaining: 7, resetAt: 35_000, expiresAt: 5000 + RateLimitLease.lifetimeMilliseconds))
        let (second, afterSecond) = try #require(lease.take(nowMilliseconds: 5500))
        #expect(second == RateLimitDecision(allowed: true, remaining: 8, resetSeconds: 30, retryAfter: nil))
        let (third, afterThird) = try #require(afterSecond.take(nowMilliseconds: 5600))
        #expect(third.remaining == 7)
        #expect(afterThird.take(nowMilliseconds: 5700) == nil, "used up")
        #expect(afterSecond.take(nowMilliseconds: lease.expiresAt) == nil, "expired")
    }

    @Test("the first request of a lease's lifetime asks for one, a request finding it used up asks for a block")
    func leaseWant() {
        let redis = RateLimitDecision(allowed: true, remaining: 500, resetSeconds: 30, retryAfter: nil)
        let lifetime = RateLimitLease.lifetimeMilliseconds
        #expect(RateLimitLease.want(after: nil, size: 20, nowMilliseconds: 0) == 1, "a new caller reserves nothing")
        let single = RateLimitLease.after(taken: 1, decision: redis, nowMilliseconds: 0)
        #expect(
            RateLimitLease.want(after: single, size: 20, nowMilliseconds: lifetime - 1) == 20, "seen again: a block")
        var block = RateLimitLease.after(taken: 20, decision: redis, nowMilliseconds: 0)
        block.left = 0
        #expect(RateLimitLease.want(after: block, size: 20, nowMilliseconds: lifetime - 1) == 20, "used up in time")
        #expect(RateLimitLease.want(after: block, size: 20, nowMilliseconds: lifetime) == 1, "the lifetime ended")
        #expect(RateLimitLease.want(after: single, size: 20, nowMilliseconds: 5 * lifetime) == 1, "away long")
    }

    @Test("a block that lands beside one still held adds to it, and both end with the sooner lifetime")
    func leaseMerge() {
        let redis = RateLimitDecision(allowed: true, remaining: 500, resetSeconds: 30, retryAfter: nil)
        let held = RateLimitLease.after(taken: 10, decision: redis, nowMilliseconds: 0)  // 9 left
        let newer = RateLimitLease.after(
            taken: 10, decision: RateLimitDecision(allowed: true, remaining: 490, resetSeconds: 31, retryAfter: nil),
            nowMilliseconds: 5)
        let merged = RateLimitLease.merged(newer, into: held, nowMilliseconds: 5)
        #expect(merged.left == 18 && merged.remaining == 490 && merged.expiresAt == held.expiresAt)
        #expect(RateLimitLease.merged(newer, into: nil, nowMilliseconds: 5) == newer)
        #expect(RateLimitLease.merged(newer, into: held, nowMilliseconds: held.expiresAt) == newer, "expired")
        let single = RateLimitLease.after(taken: 1, decision: redis, nowMilliseconds: 0)
        #expect(RateLimitLease.merged(newer, into: single, nowMilliseconds: 5) == newer, "it held nothing")
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

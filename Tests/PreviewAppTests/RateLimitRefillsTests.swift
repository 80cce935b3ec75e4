import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp

/// `RateLimitRefills` against a real redis-server: refills asked for together go to Redis in
/// one round trip and land in their callers' leases.
@Suite("Rate limit refills")
struct RateLimitRefillsTests {
    /// The real client, with the round trips made through it counted.
    final class CountingClient: RedisClient {
        let client: RedisServerClient
        let roundTrips = Atomic<Int>(0)

        init(_ client: RedisServerClient) {
            self.client = client
        }

        func withConnection<T>(_ body: (any RedisCommands) throws -> T) throws -> T {
            roundTrips.add(1, ordering: .relaxed)
            return try client.withConnection(body)
        }

        var metrics: RedisMetrics { client.metrics }
        var idleCount: Int { client.idleCount }
        func dedicatedConnection(commandTimeout: Double) throws -> RedisConnection {
            try client.dedicatedConnection(commandTimeout: commandTimeout)
        }
    }

    @Test("refills asked for within the gather time go to Redis in one round trip, each to its caller's lease")
    func gatheredRefills() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        let client = CountingClient(RedisServerClient(pool: redis.pool()))
        let leases = RateLimitLeases()
        // Long enough that the twenty asks below, a few microseconds apart, all fall in it.
        let refills = RateLimitRefills(
            limiter: RateLimiter(client: client, keys: RedisKeys(prefix: "rf")), leases: leases, gatherSeconds: 2)
        let policy = RateLimitPolicy(count: 6000, periodSeconds: 3600)
        let now: Int64 = 1_800_000_000_000
        let callers = (0..<20).map { "sub:reader-\($0)" }
        for (index, caller) in callers.enumerated() {
            #expect(
                refills.ask(
                    .init(
                        limitClass: .feed, caller: caller, policy: policy, want: Int64(10 + index),
                        askedAtMilliseconds: now)))
        }
        var landed: [String: RateLimitDecision] = [:]
        #expect(
            eventually(within: 30) {
                for caller in callers where landed[caller] == nil {
                    if case .leased(let decision, _) = leases.take(
                        .feed, caller: caller, cap: 100, nowMilliseconds: now)
                    {
                        landed[caller] = decision
                    }
                }
                return landed.count == callers.count
            })
        #expect(client.roundTrips.load(ordering: .relaxed) == 1, "one pipelined round trip for all twenty")
        let limiter = RateLimiter(client: RedisServerClient(pool: redis.pool()), keys: RedisKeys(prefix: "rf"))
        for (index, caller) in callers.enumerated() {
            // The lease holds what its refill counted: one answered here, the rest still the caller's.
            #expect(landed[caller]?.remaining == 5999, "\(caller): \(String(describing: landed[caller]))")
            let next = try limiter.check(caller: caller, .feed, policy: policy, want: 1)
            #expect(next.decision.remaining == Int64(6000 - (10 + index) - 1), "\(caller)'s own refill was counted")
        }
    }

    @Test("a refused refill leaves the caller no credit, a failed one leaves what it owes, and both may be asked again")
    func unansweredRefills() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        let limiter = RateLimiter(client: RedisServerClient(pool: redis.pool()), keys: RedisKeys(prefix: "rf"))
        let leases = RateLimitLeases()
        let refills = RateLimitRefills(limiter: limiter, leases: leases, gatherSeconds: 0.001)
        let policy = RateLimitPolicy(count: 10, periodSeconds: 3600)
        let now: Int64 = 1_800_000_000_000
        let caller = "sub:spent"
        // Another replica spent the caller's whole budget; this one still holds its credit.
        _ = try limiter.check(caller: caller, .feed, policy: policy, want: 10)
        let owing = RateLimitLease(
            left: 0, remaining: 5, resetAt: now, expiresAt: now + 5000, size: 4, used: 4, asked: 8, owed: 2)
        leases.keep(owing, .feed, caller: caller, answersAsk: false, nowMilliseconds: now)
        #expect(
            refills.ask(.init(limitClass: .feed, caller: caller, policy: policy, want: 8, askedAtMilliseconds: now)))
        #expect(eventually { leases.lease(.feed, caller: caller)?.asked == 0 }, "the refusal is recorded")
        let refused = try #require(leases.lease(.feed, caller: caller))
        #expect(refused.remaining == 0 && refused.owed == 0, "\(refused)")
        #expect(leases.take(.feed, caller: caller, cap: 10, nowMilliseconds: now) == .ask(8), "Redis is asked next")

        let other = "sub:unlucky"
        leases.keep(owing, .feed, caller: other, answersAsk: false, nowMilliseconds: now)
        redis.stop()
        #expect(refills.ask(.init(limitClass: .feed, caller: other, policy: policy, want: 8, askedAtMilliseconds: now)))
        #expect(eventually(within: 30) { leases.lease(.feed, caller: other)?.asked == 0 }, "the failure is recorded")
        let failed = try #require(leases.lease(.feed, caller: other))
        #expect(failed.owed == 2 && failed.remaining == 5, "\(failed)")
        let credit = RateLimitDecision(allowed: true, remaining: 2, resetSeconds: 0, retryAfter: nil)
        #expect(
            leases.take(.feed, caller: other, cap: 10, nowMilliseconds: now) == .leased(credit, refill: 8),
            "one more request on credit, and the ask made again")
    }
}

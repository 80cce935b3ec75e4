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
}

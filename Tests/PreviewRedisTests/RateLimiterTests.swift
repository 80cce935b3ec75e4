import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// `RateLimiter` against a real redis-server: one caller's count, one request or a feed
/// lease's block at a time.
@Suite("Rate limiter")
struct RateLimiterTests {
    let redis: RedisServerFixture
    let limiter: RateLimiter
    let policy = RateLimitPolicy(count: 100, periodSeconds: 3600)

    init() throws {
        redis = try RedisServerFixture()
        limiter = RateLimiter(client: RedisServerClient(pool: redis.pool()), keys: RedisKeys(prefix: "rl"))
    }

    @Test("a block takes as many requests as fit, at least one or none, and a failed reply is thrown")
    func blocks() throws {
        let block = try limiter.check(caller: "sub:reader", .feed, policy: policy, want: 30)
        #expect(block.taken == 30 && block.decision.remaining == 70)
        let rest = try limiter.check(caller: "sub:reader", .feed, policy: policy, want: 80)
        #expect(rest.taken == 70, "only what is left of the caller's budget: \(rest)")
        #expect(rest.decision.remaining == 0)
        let refused = try limiter.check(caller: "sub:reader", .feed, policy: policy)
        #expect(refused.taken == 0 && refused.decision.retryAfter != nil, "the budget holds")
        let fresh = try limiter.check(caller: "sub:fresh", .feed, policy: policy)
        #expect(fresh.taken == 1 && fresh.decision.remaining == 99, "another caller has a budget of its own")
        // A key of another type makes the script's GET fail.
        _ = try redis.connection().command([
            "HSET", RedisKeys(prefix: "rl").rateLimit(caller: "sub:broken", .feed), "a", "b",
        ])
        let failed = #expect(throws: RedisError.self, "a count whose key holds a hash fails") {
            try limiter.check(caller: "sub:broken", .feed, policy: policy, want: 5)
        }
        #expect(failed?.kind == .server, "\(String(describing: failed))")
    }
}

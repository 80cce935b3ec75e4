import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// `RateLimiter` against a real redis-server: one caller's count, and several callers' counts
/// pipelined in one round trip (how leases are refilled ahead of need).
@Suite("Rate limiter")
struct RateLimiterTests {
    let redis: RedisServerFixture
    let limiter: RateLimiter
    let policy = RateLimitPolicy(count: 100, periodSeconds: 3600)

    init() throws {
        redis = try RedisServerFixture()
        limiter = RateLimiter(client: RedisServerClient(pool: redis.pool()), keys: RedisKeys(prefix: "rl"))
    }

    func request(_ caller: String, want: Int64) -> RateLimiter.Request {
        RateLimiter.Request(caller: caller, limitClass: .feed, policy: policy, want: want)
    }

    @Test("counts pipelined together answer as one call each would, and a failed reply fails its own count alone")
    func pipelinedCounts() throws {
        let alone = try limiter.check(caller: "sub:alone", .feed, policy: policy, want: 30)
        #expect(alone.taken == 30 && alone.decision.remaining == 70)
        // A key of another type makes the script's GET fail for that caller only.
        _ = try redis.connection().command([
            "HSET", RedisKeys(prefix: "rl").rateLimit(caller: "sub:broken", .feed), "a", "b",
        ])
        let answers = try limiter.check([
            request("sub:alone", want: 80), request("sub:broken", want: 5), request("sub:fresh", want: 10),
        ])
        try #require(answers.count == 3)
        let more = try answers[0].get()
        #expect(more.taken == 70, "only what is left of the caller's budget: \(more)")
        #expect(more.decision.remaining == 0)
        let failed = #expect(throws: RedisError.self, "a count whose key holds a hash fails") { try answers[1].get() }
        #expect(failed?.kind == .server, "\(String(describing: failed))")
        let fresh = try answers[2].get()
        #expect(fresh.taken == 10 && fresh.decision.remaining == 90)
        let refused = try #require(try limiter.check([request("sub:alone", want: 1)]).first).get()
        #expect(refused.taken == 0 && refused.decision.retryAfter != nil, "the budget holds across both ways of asking")
        #expect(try limiter.check([]).isEmpty)
    }
}

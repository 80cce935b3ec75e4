import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Feed leases (`RateLimitLease`, `RateLimitLeases`): two limiters on one real redis-server, as
/// two replicas, share a caller's budget and never serve more than it; a full table drops leases.
@Suite("Rate limit leases")
struct RateLimitLeasesTests {
    /// A replica's limiter: `feed=600/1h`, blocks of 10 (nothing comes back during a test).
    static func replica(_ redis: RedisServerFixture) throws -> RateLimiting {
        RateLimiting(
            limits: try RateLimits.parse(["feed=600/1h"], base: RateLimits(policies: [:])).get(),
            limiter: RateLimiter(client: RedisServerClient(pool: redis.pool()), keys: RedisKeys(prefix: "t")),
            metrics: RateLimitMetrics())
    }

    /// Whether the replica serves one feed request of `caller` (false: 429 `rate_limited`).
    static func served(_ limiting: RateLimiting, _ caller: String) throws -> Bool {
        do {
            let answer = try limiting.admit(.feed, caller: caller, nowMilliseconds: 1_800_000_000_000)
            #expect(answer != nil, "checked, not served unchecked")
            return answer != nil
        } catch let failure as APIFailure {
            #expect(failure.error.code == .rateLimited && failure.error.retryAfter != nil, "\(failure.error)")
            return false
        }
    }

    @Test("two replicas serve a caller's budget exactly, never more, refusing early by at most one block less one")
    func twoReplicas() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        let (first, second) = (try Self.replica(redis), try Self.replica(redis))
        var served = 0
        var servedAtFirstRefusal: Int?
        for index in 0..<700 {
            // Unevenly, so the two leases run out at different times.
            if try Self.served(index % 3 == 0 ? first : second, "sub:shared") {
                served += 1
                #expect(served <= 600, "never more than the limit")
            } else if servedAtFirstRefusal == nil {
                servedAtFirstRefusal = served
            }
        }
        #expect(served == 600, "every counted request is served where its block is held")
        let early = try #require(servedAtFirstRefusal)
        #expect(early >= 600 - 9, "the other replica held at most 9 when the first was refused: \(early)")
    }

    @Test("two replicas answering one caller from four threads each never serve more than its budget")
    func twoReplicasConcurrently() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        let replicas = [try Self.replica(redis), try Self.replica(redis)]
        let served = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<150 where (try? Self.served(replicas[thread % 2], "sub:busy")) == true {
                served.add(1, ordering: .relaxed)
            }
        }
        #expect(served.load(ordering: .relaxed) <= 600)
        // What the leases still hold is the caller's: each replica serves it, then refuses.
        var drained = served.load(ordering: .relaxed)
        for replica in replicas {
            while try Self.served(replica, "sub:busy") { drained += 1 }
        }
        #expect(drained == 600, "no counted request was lost to a race, none served twice")
    }

    @Test("a full table drops the leases that hold nothing first, then all of a shard's, and keeps the new one")
    func evictionAtTheCap() {
        let held = RateLimitLease(left: 5, remaining: 100, resetAt: 0, expiresAt: 100_000)
        let leases = RateLimitLeases(maxEntries: 64)  // 4 a shard
        for number in 0..<1_000 {
            leases.keep(held, .feed, caller: "sub:\(number)", nowMilliseconds: 0)
            #expect(leases.count <= 64)
        }
        #expect(leases.lease(.feed, caller: "sub:999") == held, "the lease stored last is kept")
        let dropped = (0..<1_000).first { leases.lease(.feed, caller: "sub:\($0)") == nil }
        #expect(
            dropped.map { leases.take(.feed, caller: "sub:\($0)", size: 10, nowMilliseconds: 0) } == .ask(1),
            "a caller whose lease was dropped is counted alone again")

        let emptied = RateLimitLeases(maxEntries: 64)
        emptied.keep(held, .feed, caller: "sub:live", nowMilliseconds: 0)
        for number in 0..<1_000 {
            emptied.keep(
                RateLimitLease(left: 0, remaining: 100, resetAt: 0, expiresAt: 100_000), .feed,
                caller: "sub:single-\(number)", nowMilliseconds: 0)
        }
        #expect(emptied.count <= 64)
        #expect(
            emptied.lease(.feed, caller: "sub:live") == held,
            "a lease that holds requests outlives those that hold none")
    }
}

import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Per-caller rate limits through the router against a real Redis. Policies have long periods
/// (an hour), so nothing comes back during a test: the outcomes are decided by counts alone.
@Suite("Rate limits per caller")
struct RateLimitRouteTests {
    static func limits(_ items: String...) throws -> RateLimits {
        try RateLimits.parse(items, base: RateLimits(policies: [:])).get()
    }

    @Test("the write after the limit in a period is 429 rate_limited with Retry-After and both RateLimit fields")
    func writeOverLimit() throws {
        let app = try AppHarness(rateLimits: try Self.limits("write=3/1h"))
        try app.publish(stream: 5)
        let viewer = app.token("vic", .viewer)
        for remaining in [2, 1, 0] {
            let liked = app.send("POST", "/api/streams/5/like", token: viewer)
            #expect(liked.status == 200, "\(liked.text)")
            #expect(liked.headers["RateLimit-Policy"] == #""write";q=3;w=3600"#)
            #expect(liked.headers["RateLimit"]?.hasPrefix(#""write";r=\#(remaining);t="#) == true)
        }
        let refused = app.send("POST", "/api/streams/5/like", token: viewer)
        #expect(refused.status == 429, "\(refused.text)")
        #expect(refused.errorCode == "rate_limited")
        let retryAfter = try #require(refused.headers["Retry-After"].flatMap { Int($0) })
        #expect((1...1200).contains(retryAfter), "one interval of 3/1h, rounded up: \(retryAfter)")
        #expect(refused.headers["RateLimit-Policy"] == #""write";q=3;w=3600"#)
        let fields = try #require(refused.headers["RateLimit"])
        #expect(fields.hasPrefix(#""write";r=0;t="#), "\(fields)")
        #expect(app.context.metrics.rateLimits.limitedCount(.write) == 1)
        let seen = app.send("POST", "/api/streams/5/seen", token: viewer)
        #expect(seen.status == 429, "seen marks share the write budget: \(seen.text)")
    }

    @Test("answers that fail in the handler still carry the fields of their class")
    func errorAnswersCarryTheFields() throws {
        let app = try AppHarness(rateLimits: try Self.limits("write=3/1h"))
        let missing = app.send("POST", "/api/streams/404/like", token: app.token("vic", .viewer))
        #expect(missing.status == 404, "\(missing.text)")
        #expect(missing.headers["RateLimit"]?.hasPrefix(#""write";r=2;"#) == true)
    }

    @Test("another token subject has a budget of its own")
    func otherSubjectOwnBudget() throws {
        let app = try AppHarness(rateLimits: try Self.limits("write=2/1h"))
        try app.publish(stream: 5)
        let first = app.token("first", .viewer)
        for _ in 0..<2 { #expect(app.send("POST", "/api/streams/5/seen", token: first).status == 204) }
        #expect(app.send("POST", "/api/streams/5/seen", token: first).status == 429)
        let second = app.send("POST", "/api/streams/5/seen", token: app.token("second", .viewer))
        #expect(second.status == 204, "\(second.text)")
        #expect(second.headers["RateLimit"]?.hasPrefix(#""write";r=1;"#) == true)
    }

    @Test("anonymous callers are limited by client address, an IPv6 client by its /64")
    func anonymousByAddress() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=2/1h"))
        for _ in 0..<2 { #expect(app.send("GET", "/api/feed", from: "198.51.100.1").status == 200) }
        #expect(app.send("GET", "/api/feed", from: "198.51.100.1").status == 429)
        #expect(app.send("GET", "/api/feed", from: "198.51.100.2").status == 200)
        #expect(app.send("GET", "/api/feed", from: "2001:db8:1:1::a").status == 200)
        #expect(app.send("GET", "/api/feed", from: "2001:db8:1:1::b").status == 200)
        #expect(app.send("GET", "/api/feed", from: "2001:db8:1:1:ffff::c").status == 429, "same /64")
        #expect(app.send("GET", "/api/feed", from: "2001:db8:1:2::a").status == 200, "another /64")
        let withToken = app.send("GET", "/api/feed", token: app.token("vic", .viewer), from: "198.51.100.1")
        #expect(withToken.status == 200, "a token's subject is counted, not its address: \(withToken.text)")
    }

    @Test("behind a trusted proxy X-Forwarded-For names the client; from any other peer it is ignored")
    func trustedProxySelection() throws {
        let app = try AppHarness(
            rateLimits: try Self.limits("feed=1/1h"),
            trustedProxies: TrustedProxies([try #require(CIDRBlock("10.0.0.0/8"))]))
        let viaProxy = { (forwarded: String) in
            app.send("GET", "/api/feed", headers: [("X-Forwarded-For", forwarded)], from: "10.0.0.2").status
        }
        #expect(viaProxy("203.0.113.5") == 200)
        #expect(viaProxy("203.0.113.5") == 429)
        #expect(viaProxy("203.0.113.6") == 200, "another client behind the same proxy")
        #expect(viaProxy("203.0.113.5, 10.0.0.9") == 429, "a trusted hop is skipped")
        #expect(viaProxy("203.0.113.7, 203.0.113.5") == 429, "only the right-most untrusted entry counts")

        let direct = { (forwarded: String) in
            app.send("GET", "/api/feed", headers: [("X-Forwarded-For", forwarded)], from: "198.51.100.9").status
        }
        #expect(direct("203.0.113.8") == 200)
        #expect(direct("203.0.113.9") == 429, "an untrusted peer's X-Forwarded-For is ignored: one budget")
    }

    @Test("a class turned off is not counted and its answers carry no RateLimit fields")
    func classOff() throws {
        let app = try AppHarness(rateLimits: try Self.limits("write=1/1h", "feed=off"))
        for _ in 0..<3 {
            let feed = app.send("GET", "/api/feed")
            #expect(feed.status == 200)
            #expect(feed.headers["RateLimit"] == nil && feed.headers["RateLimit-Policy"] == nil)
        }
        #expect(app.send("GET", "/healthz").headers["RateLimit"] == nil, "health checks are never limited")
    }

    @Test("a burst of M requests against a limit of L is refused exactly M - L times")
    func burstExactCount() throws {
        let app = try AppHarness(rateLimits: try Self.limits("write=20/1h"))
        try app.publish(stream: 5)
        let viewer = app.token("burst", .viewer)
        let statuses = (0..<75).map { index in
            app.send(index % 2 == 0 ? "POST" : "DELETE", "/api/streams/5/like", token: viewer).status
        }
        #expect(statuses.filter { $0 == 429 }.count == 55)
        #expect(statuses.filter { $0 == 200 }.count == 20)
        #expect(statuses.prefix(20).allSatisfy { $0 == 200 }, "the first L are the ones served")
        #expect(app.context.metrics.rateLimits.limitedCount(.write) == 55)
        let key = app.context.store.keys.rateLimit(caller: "sub:burst", .write)
        #expect(key == "t:{rl:sub%3Aburst}:write", "one slot per caller")
        let ttl = try #require(try app.redis.connection().command(["PTTL", key]).int)
        #expect((3_500_000...3_600_000).contains(ttl), "the key expires when the bucket is empty again: \(ttl) ms")
    }

    /// The `r` of a feed answer's RateLimit field.
    static func remaining(_ response: HTTPResponse) throws -> Int {
        let field = try #require(response.headers["RateLimit"], "\(response.status) \(response.text)")
        return try #require(field.split(separator: ";").first { $0.hasPrefix("r=") }.flatMap { Int($0.dropFirst(2)) })
    }

    @Test("feed requests are counted in Redis a block at a time: the budget is served exactly, then refused")
    func feedLeases() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=600/1h"))  // blocks of 10
        let admin = try app.redis.connection()
        _ = try admin.command(["CONFIG", "RESETSTAT"])
        let viewer = app.token("reader", .viewer)
        var remaining: [Int] = []
        for _ in 0..<600 {
            let feed = app.send("GET", "/api/feed", token: viewer)
            try #require(feed.status == 200, "after \(remaining.count): \(feed.status) \(feed.text)")
            remaining.append(try Self.remaining(feed))
        }
        #expect(remaining == Array((0..<600).reversed()), "every counted request is served once, in order")
        let refused = app.send("GET", "/api/feed", token: viewer)
        #expect(refused.status == 429 && refused.errorCode == "rate_limited", "\(refused.text)")
        #expect(refused.headers["Retry-After"] != nil && refused.headers["RateLimit-Policy"] == #""feed";q=600;w=3600"#)
        #expect(try Self.remaining(refused) == 0)
        let stats = try #require(try admin.command(["INFO", "commandstats"]).string)
        let scripts = try #require(stats.split(separator: "\r\n").first { $0.hasPrefix("cmdstat_evalsha:") })
        let calls = try #require(Int(scripts.dropFirst("cmdstat_evalsha:calls=".count).prefix { $0.isNumber }))
        #expect(calls == 62, "the first request alone, 60 blocks (the last of 9), the refusal: \(scripts)")
    }

    @Test("a viewer who reads now and then reserves one request at a time: nothing is wasted")
    func sporadicReaderLeasesOne() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=600/1h"))
        let viewer = app.token("occasional", .viewer)
        let first = app.send("GET", "/api/feed", token: viewer)
        #expect(first.status == 200, "\(first.text)")
        #expect(first.headers["RateLimit"] == #""feed";r=599;t=6"#, "one request counted, none held")
    }

    @Test("a lease's lifetime ends: what it held is dropped, one request is counted alone, then a fresh block")
    func leaseLifetimeTurns() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=600/1h"))  // blocks of 10
        let limiting = try #require(app.context.rateLimiting)
        let viewer = app.token("steady", .viewer)
        let feed = { try Self.remaining(app.send("GET", "/api/feed", token: viewer)) }
        #expect(try [feed(), feed(), feed()] == [599, 598, 597], "one alone, then a block of 10")
        #expect(limiting.leases.lease(.feed, caller: "sub:steady")?.left == 8)
        app.clock.advance(milliseconds: RateLimitLease.lifetimeMilliseconds)
        #expect(try feed() == 588, "counted alone; the 8 the lease held stay counted in Redis")
        #expect(try feed() == 587, "a fresh block of 10: 578 left in Redis, 9 held here")
        #expect(limiting.leases.lease(.feed, caller: "sub:steady")?.left == 9)
    }

    @Test("with Redis stopped a reader's lease still answers what it holds, then the feed is served unchecked")
    func leaseWithoutRedis() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=600/1h"))  // blocks of 10
        let viewer = app.token("steady", .viewer)
        let feed = { app.send("GET", "/api/feed", token: viewer) }
        #expect(try [Self.remaining(feed()), Self.remaining(feed())] == [599, 598], "one alone, then a block of 10")
        app.redis.stop()
        for expected in (589...597).reversed() {
            let leased = feed()
            #expect(leased.status == 200, "\(leased.text)")
            #expect(try Self.remaining(leased) == expected)
        }
        let scrape = { MetricsHandler(context: app.context, dedicatedListener: false).render() }
        #expect(!scrape().contains(#"streampreview_rate_limit_fail_open_total{class="feed"} 1"#))
        let unchecked = feed()
        #expect(unchecked.status == 200, "\(unchecked.text)")
        #expect(unchecked.headers["RateLimit"] == nil, "the lease used up, Redis asked and down: \(unchecked.headers)")
        #expect(scrape().contains(#"streampreview_rate_limit_fail_open_total{class="feed"} 1"#), "\(scrape())")
    }

    @Test("with Redis stopped the feed is served unchecked and counted, and a like is 503")
    func redisDown() throws {
        let app = try AppHarness(rateLimits: try Self.limits("feed=100/1h", "write=100/1h"))
        try app.publish(stream: 5)
        let viewer = app.token("vic", .viewer)
        #expect(app.send("GET", "/api/feed").status == 200, "the live list is now cached")
        app.redis.stop()
        let feed = app.send("GET", "/api/feed")
        #expect(feed.status == 200, "\(feed.text)")
        #expect(feed.headers["RateLimit"] == nil, "nothing was counted, so nothing is claimed")
        let like = app.send("POST", "/api/streams/5/like", token: viewer)
        #expect(like.status == 503, "\(like.text)")
        #expect(like.errorCode == "unavailable")
        #expect(like.headers["Retry-After"] == "1")
        let scrape = MetricsHandler(context: app.context, dedicatedListener: false).render()
        #expect(scrape.contains(#"streampreview_rate_limit_fail_open_total{class="feed"} 1"#), "\(scrape)")
    }
}

package import PreviewCore
package import PreviewRedis

/// The per-caller rate limits of `--rate-limit`, applied by the router before a limited route's
/// handler runs. The caller is the token's subject; without a valid token, the client address
/// (its /64 for IPv6). Each check is one Redis round trip on the caller's key, except feed
/// requests answered from a block of requests this process already counted in Redis
/// (`RateLimitLease`, which states the bounds: it never serves more than Redis admitted, and
/// may refuse early by what other replicas' leases hold).
/// A class: every limited request reads it from the context, and a struct of this many
/// references was copied (and each retained) per request.
package final class RateLimiting: Sendable {
    let limits: RateLimits
    let limiter: RateLimiter
    let metrics: RateLimitMetrics
    /// Feed requests already counted in Redis, answered without asking again (`RateLimitLease`).
    let leases: RateLimitLeases
    /// What admitting a request of a limited class needs, fixed at start, by `RateLimitClass.index`
    /// (nil for a class turned off).
    private let classes: [Limited?]

    private struct Limited: Sendable {
        let policy: RateLimitPolicy
        /// The block one Redis call takes (`RateLimitLease.size`); 1: the class leases nothing.
        let size: Int64
    }

    package init(limits: RateLimits, limiter: RateLimiter, metrics: RateLimitMetrics) {
        self.limits = limits
        self.limiter = limiter
        self.metrics = metrics
        leases = RateLimitLeases()
        classes = RateLimitClass.allCases.map { limitClass in
            limits[limitClass].map {
                Limited(policy: $0, size: RateLimitLease.size(limitClass, $0))
            }
        }
    }
    /// A warning is logged for the first feed request served unchecked and then for every
    /// this many, so an outage is seen without a line per request.
    static let failOpenLogEvery: UInt64 = 1000

    /// The `RateLimit-Policy` and `RateLimit` fields for the answer when the request may go on;
    /// nil when its class is not limited. Throws `APIFailure` 429 `rate_limited` (with
    /// `Retry-After` and both fields) when the caller is over its limit, and the Redis error
    /// when Redis cannot be asked, except for the feed, which is then served unchecked.
    func admit(_ limitClass: RateLimitClass, caller: String, nowMilliseconds: Int64) throws -> RateLimitFields.Answer? {
        guard let limited = classes[limitClass.index] else { return nil }
        let policy = limited.policy
        // A class that leases nothing is counted one by one and leaves no trace here.
        let size = limited.size
        var want: Int64 = 1
        if size > 1 {
            switch leases.take(limitClass, caller: caller, size: size, nowMilliseconds: nowMilliseconds) {
            case .served(let decision): return fields(limitClass, limited, decision)
            case .ask(let count): want = count
            }
        }
        let decision: RateLimitDecision
        do {
            let (taken, first) = try limiter.check(caller: caller, limitClass, policy: policy, want: want)
            if size > 1, taken > 0 {
                leases.keep(
                    RateLimitLease.after(taken: taken, decision: first, nowMilliseconds: nowMilliseconds), limitClass,
                    caller: caller, nowMilliseconds: nowMilliseconds)
            }
            decision = RateLimitLease.firstDecision(first, taken: taken)
        } catch let error as RedisError where limitClass == .feed {
            let count = metrics.recordFailOpen(limitClass)
            if count % Self.failOpenLogEvery == 1 {
                Log.warn(
                    "rate_limit_fail_open",
                    ["class": limitClass.rawValue, "served_unchecked": String(count), "error": error.description])
            }
            return nil
        }
        let answerFields = fields(limitClass, limited, decision)
        guard let retryAfter = decision.retryAfter else { return answerFields }
        metrics.recordLimited(limitClass)
        throw APIFailure(
            APIError(
                .rateLimited,
                "over the \(limitClass.rawValue) rate limit of \(policy.count) requests per "
                    + "\(policy.periodSeconds) s; retry after \(retryAfter) s", retryAfter: retryAfter),
            headers: answerFields.headers)
    }

    private func fields(_ limitClass: RateLimitClass, _ limited: Limited, _ decision: RateLimitDecision)
        -> RateLimitFields.Answer
    {
        RateLimitFields.Answer(
            policy: RateLimitFields.policy(limitClass, limited.policy),
            limit: RateLimitFields.limit(limitClass, decision))
    }

    /// Whom a request is counted for: `sub:<subject>` for a valid token, else `ip:<address
    /// group>` of the client address (`peer:<text>` when the peer is no IP address).
    static func caller(subject: String?, client: IPAddress?, peer: String) -> String {
        if let subject { return "sub:" + subject }
        if let client { return "ip:" + client.limitGroup }
        return "peer:" + peer
    }
}

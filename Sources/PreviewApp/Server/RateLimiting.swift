import PreviewCore
import PreviewRedis

/// The per-caller rate limits of `--rate-limit`, applied by the router before a limited route's
/// handler runs. The caller is the token's subject; without a valid token, the client address
/// (its /64 for IPv6). Each check is one Redis round trip on the caller's key, except feed
/// requests answered from a lease this process holds (`RateLimitLease`).
struct RateLimiting: Sendable {
    let limits: RateLimits
    let limiter: RateLimiter
    let metrics: RateLimitMetrics
    /// Feed requests already counted in Redis, answered without asking again (`RateLimitLease`).
    let leases = RateLimitLeases()
    /// Each class's `RateLimit-Policy` value, which never changes.
    private let policyFields: [RateLimitClass: String]

    init(limits: RateLimits, limiter: RateLimiter, metrics: RateLimitMetrics) {
        self.limits = limits
        self.limiter = limiter
        self.metrics = metrics
        policyFields = limits.policies.reduce(into: [:]) { $0[$1.key] = RateLimitFields.policy($1.key, $1.value) }
    }
    /// A warning is logged for the first feed request served unchecked and then for every
    /// this many, so an outage is seen without a line per request.
    static let failOpenLogEvery: UInt64 = 1000

    /// The `RateLimit-Policy` and `RateLimit` fields for the answer when the request may go on;
    /// nil when its class is not limited. Throws `APIFailure` 429 `rate_limited` (with
    /// `Retry-After` and both fields) when the caller is over its limit, and the Redis error
    /// when Redis cannot be asked, except for the feed, which is then served unchecked.
    func admit(_ limitClass: RateLimitClass, caller: String, nowMilliseconds: Int64) throws -> HTTPHeaders? {
        guard let policy = limits[limitClass] else { return nil }
        if let leased = leases.take(limitClass, caller: caller, nowMilliseconds: nowMilliseconds) {
            return fields(limitClass, policy, leased)
        }
        let decision: RateLimitDecision
        do {
            let (taken, first) = try limiter.check(
                caller: caller, limitClass, policy: policy, want: RateLimitLease.size(limitClass, policy))
            if let lease = RateLimitLease.after(taken: taken, decision: first, nowMilliseconds: nowMilliseconds) {
                leases.keep(lease, limitClass, caller: caller, nowMilliseconds: nowMilliseconds)
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
        let answerFields = fields(limitClass, policy, decision)
        guard let retryAfter = decision.retryAfter else { return answerFields }
        metrics.recordLimited(limitClass)
        throw APIFailure(
            APIError(
                .rateLimited,
                "over the \(limitClass.rawValue) rate limit of \(policy.count) requests per "
                    + "\(policy.periodSeconds) s; retry after \(retryAfter) s", retryAfter: retryAfter),
            headers: answerFields)
    }

    private func fields(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy, _ decision: RateLimitDecision)
        -> HTTPHeaders
    {
        var fields = HTTPHeaders()
        fields.add(
            RateLimitFields.policyName, policyFields[limitClass] ?? RateLimitFields.policy(limitClass, policy))
        fields.add(RateLimitFields.limitName, RateLimitFields.limit(limitClass, decision))
        return fields
    }

    /// Whom a request is counted for: `sub:<subject>` for a valid token, else `ip:<address
    /// group>` of the client address (`peer:<text>` when the peer is no IP address).
    static func caller(subject: String?, client: IPAddress?, peer: String) -> String {
        if let subject { return "sub:" + subject }
        if let client { return "ip:" + client.limitGroup }
        return "peer:" + peer
    }
}

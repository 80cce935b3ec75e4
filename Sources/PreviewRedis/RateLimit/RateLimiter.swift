public import PreviewCore

/// Counts a caller's request against its class's budget: one EVALSHA on the caller's own key,
/// so all replicas share the budget and a Redis Cluster routes it by the caller's hash tag.
public struct RateLimiter: Sendable {
    public let client: any RedisClient
    public let keys: RedisKeys

    public init(client: any RedisClient, keys: RedisKeys) {
        self.client = client
        self.keys = keys
    }

    /// Counts up to `want` requests of `caller` (`sub:…` or `ip:…`) in `limitClass` under
    /// `policy` (as many as fit, at least one or none: a feed lease's block, `RateLimitLease`),
    /// on the Redis server's clock: how many were taken, and the decision for the first of them.
    /// Throws what the Redis call throws.
    public func check(caller: String, _ limitClass: RateLimitClass, policy: RateLimitPolicy, want: Int64 = 1) throws
        -> (taken: Int64, decision: RateLimitDecision)
    {
        let gcra = GCRA(policy)
        let want = max(1, want)
        let reply = try client.withConnection { connection in
            try connection.eval(
                RateLimitScript.gcra, keys: [keys.rateLimit(caller: caller, limitClass)],
                args: [String(gcra.interval), String(gcra.window), String(want)])
        }
        guard let parts = reply.array, parts.count == 2, let taken = parts[0].int, let ahead = parts[1].int,
            (0...want).contains(taken)
        else {
            if case .error(let message) = reply { throw RedisError.reply(message) }
            throw RedisError(kind: .protocolError, message: "unexpected reply from the rate limit script")
        }
        return (taken, gcra.decision(allowed: taken > 0, ahead: ahead))
    }
}

/// The GCRA step of `GCRA.step(tat:now:want:)`, on the server: every replica's requests are
/// timed by the one Redis clock (`TIME`; Redis 7 replicates a script's effects, not the script,
/// so reading the clock before a write is allowed). Times are whole microseconds, exact in Lua's
/// doubles, and handed to `redis.call` as numbers (Redis writes them in full; string
/// concatenation would round them to 14 digits).
/// KEYS: the caller's key in the class (`RedisKeys.rateLimit`).
/// ARGV: interval (microseconds per request), window (interval × count), want (requests to
/// take at once, as many as fit: 1, or a feed lease's block).
/// Returns {taken, TAT − now}: with taken ≥ 1 the new TAT is stored, expiring when it is
/// reached; with 0 (refused) the TAT is unchanged.
enum RateLimitScript {
    static let gcra = RedisScript(
        name: "rateLimitGCRA",
        source: """
            local clock = redis.call('TIME')
            local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])
            local interval = tonumber(ARGV[1])
            local window = tonumber(ARGV[2])
            local tat = tonumber(redis.call('GET', KEYS[1]) or now)
            if tat < now then tat = now end
            local free = math.floor((window - (tat - now)) / interval)
            if free < 1 then
              return {0, tat - now}
            end
            local taken = math.min(math.max(1, tonumber(ARGV[3])), free)
            local nextTat = tat + taken * interval
            redis.call('SET', KEYS[1], nextTat, 'PX', math.ceil((nextTat - now) / 1000))
            return {taken, nextTat - now}
            """)
}

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
    /// `policy` (as many as fit, at least one or none), on the Redis server's clock: how many
    /// were taken, and the decision for the first of them. Throws what the Redis call throws.
    public func check(caller: String, _ limitClass: RateLimitClass, policy: RateLimitPolicy, want: Int64 = 1) throws
        -> (taken: Int64, decision: RateLimitDecision)
    {
        let request = Request(caller: caller, limitClass: limitClass, policy: policy, want: want)
        let reply = try client.withConnection { connection in
            try connection.eval(RateLimitScript.gcra, keys: request.keys(keys), args: request.args)
        }
        return try request.answer(reply)
    }

    /// One caller's count of `check`, for `check(_:)`.
    public struct Request: Sendable {
        public let caller: String
        public let limitClass: RateLimitClass
        public let policy: RateLimitPolicy
        public let want: Int64
        /// The policy's arithmetic, for the script's arguments and for reading its reply.
        let gcra: GCRA

        public init(caller: String, limitClass: RateLimitClass, policy: RateLimitPolicy, want: Int64) {
            self.caller = caller
            self.limitClass = limitClass
            self.policy = policy
            self.want = want
            gcra = GCRA(policy)
        }

        func keys(_ keys: RedisKeys) -> [String] { [keys.rateLimit(caller: caller, limitClass)] }

        var args: [String] { [String(gcra.interval), String(gcra.window), String(max(1, want))] }

        func answer(_ reply: RedisValue) throws -> (taken: Int64, decision: RateLimitDecision) {
            guard let parts = reply.array, parts.count == 2, let taken = parts[0].int, let ahead = parts[1].int,
                (0...max(1, want)).contains(taken)
            else {
                if case .error(let message) = reply { throw RedisError.reply(message) }
                throw RedisError(kind: .protocolError, message: "unexpected reply from the rate limit script")
            }
            return (taken, gcra.decision(allowed: taken > 0, ahead: ahead))
        }
    }

    /// Several callers' counts in one pipelined round trip (per node of a cluster), each
    /// answered as `check` would; a reply that is an error fails that count alone. Throws when
    /// the round trip itself fails, and then none of them may be known to have been counted.
    public func check(_ requests: [Request]) throws -> [Result<(taken: Int64, decision: RateLimitDecision), RedisError>]
    {
        guard !requests.isEmpty else { return [] }
        let replies = try client.withConnection { connection in
            try connection.evalPipeline(
                RateLimitScript.gcra, calls: requests.map { (keys: $0.keys(keys), args: $0.args) })
        }
        return zip(requests, replies).map { request, reply in
            Result { try request.answer(reply) }.mapError {
                $0 as? RedisError ?? RedisError(kind: .protocolError, message: "\($0)")
            }
        }
    }
}

/// The GCRA step of `GCRA.step(tat:now:want:)`, on the server: every replica's requests are
/// timed by the one Redis clock (`TIME`; Redis 7 replicates a script's effects, not the script,
/// so reading the clock before a write is allowed). Times are whole microseconds, exact in Lua's
/// doubles, and handed to `redis.call` as numbers (Redis writes them in full; string
/// concatenation would round them to 14 digits).
/// KEYS: the caller's key in the class (`RedisKeys.rateLimit`).
/// ARGV: interval (microseconds per request), window (interval × count), want (requests to
/// take at once, as many as fit).
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

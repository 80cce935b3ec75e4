/// Retained bytes: what one stream's (and one token subject's) objects hold in the store, so
/// one streamer cannot fill it (`--max-retained-bytes-per-stream`, `-per-subject`).
///
/// Each object counts from the moment its upload URL is issued (its due time excluded) (its signed size: the declared
/// one, or the type's limit) until its due time, kept per object in a sorted set: an issued
/// upload's commit deadline + 1 (the sweeper deletes it then unless committed); a committed
/// object's preview expiry + grace, lowered to the end of its grace when a commit replaces it.
/// Commit also replaces the signed size with the real one. Entries past their due time are
/// dropped when the next upload is counted, so the sweeper's delete path needs no change: the
/// count follows the due times the sweeper itself works from. What this misses errs both
/// ways by little: a sweeper running late deletes after the due time (counted too briefly), and
/// an ended stream's objects count until their preview's expiry + grace although they go at
/// the end of their grace (counted up to `--preview-ttl` too long).
///
/// The stream's keys share its hash tag and are written by the stream's own scripts
/// (`PreviewScripts.recordUpload`, `.publish`), in the same step as the upload or commit. A
/// subject's keys live in a slot of their own (`{u:<sub>}`), so they are written in a step of
/// their own by the scripts here; see `PreviewStore.reserveRetained` for why two steps are safe.
///
/// Order within a script, for a slot that is migrating (see `PreviewScripts`): entries are
/// added before expired ones are dropped, and a drop is the last write of each key, so no
/// command touches a key that a command of the same script may have deleted.
enum RetainedScripts {
    /// Lua functions the scripts share; `K` is {bytes, sizes, due} (`RetainedKeys.all`).
    static let functions = """
        local function retained_expired(K, now)
          local gone = redis.call('ZRANGEBYSCORE', K[3], '-inf', now)
          local bytes = 0
          for i = 1, #gone, 1000 do
            local sizes = redis.call('HMGET', K[2], unpack(gone, i, math.min(i + 999, #gone)))
            for _, size in ipairs(sizes) do bytes = bytes + (tonumber(size) or 0) end
          end
          return gone, bytes
        end
        local function retained_over(K, now, max, adding, expiredBytes)
          if max <= 0 then return nil end
          local total = tonumber(redis.call('GET', K[1]) or '0') - expiredBytes
          if total + adding <= max then return nil end
          local oldest = redis.call('ZRANGEBYSCORE', K[3], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
          return tonumber(oldest[2] or (now + 1))
        end
        local function retained_set(K, member, bytes, due)
          local old = tonumber(redis.call('HGET', K[2], member) or '0')
          redis.call('HSET', K[2], member, bytes)
          redis.call('ZADD', K[3], due, member)
          redis.call('INCRBY', K[1], bytes - old)
        end
        local function retained_drop(K, gone, bytes, now)
          if #gone == 0 then return end
          redis.call('DECRBY', K[1], bytes)
          for i = 1, #gone, 1000 do
            redis.call('HDEL', K[2], unpack(gone, i, math.min(i + 999, #gone)))
          end
          redis.call('ZREMRANGEBYSCORE', K[3], '-inf', now)
        end
        local function retained_expire(K, now)
          local last = redis.call('ZRANGE', K[3], -1, -1, 'WITHSCORES')
          if last[2] then
            local ttl = math.max(1, tonumber(last[2]) - now + 1)
            for i = 1, 3 do redis.call('EXPIRE', K[i], ttl) end
          end
        end

        """

    /// Counts a subject's new objects unless that takes it over `max` bytes (0: no limit).
    /// KEYS: bytes, sizes, due. ARGV: now, max, due time, then object key/bytes pairs.
    /// Returns {"reserved", 0}, or {"quota", when the oldest counted object stops counting}.
    static let reserve = RedisScript(
        name: "reserveRetained",
        source: functions + """
            local now = tonumber(ARGV[1])
            local adding = 0
            for i = 4, #ARGV, 2 do adding = adding + tonumber(ARGV[i + 1]) end
            local gone, expiredBytes = retained_expired(KEYS, now)
            local oldest = retained_over(KEYS, now, tonumber(ARGV[2]), adding, expiredBytes)
            if oldest then
              retained_drop(KEYS, gone, expiredBytes, now)
              return {'quota', oldest}
            end
            for i = 4, #ARGV, 2 do retained_set(KEYS, ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[3])) end
            retained_drop(KEYS, gone, expiredBytes, now)
            retained_expire(KEYS, now)
            return {'reserved', 0}
            """)

    /// Sets the size and due time of a subject's objects (a commit: real sizes, counted until
    /// the preview's expiry + grace). KEYS: bytes, sizes, due. ARGV: now, then object key,
    /// bytes, due time triples. Returns 1.
    static let settle = RedisScript(
        name: "settleRetained",
        source: functions + """
            for i = 2, #ARGV, 3 do retained_set(KEYS, ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2])) end
            retained_expire(KEYS, tonumber(ARGV[1]))
            return 1
            """)

    /// Stops counting a subject's objects (an upload refused after they were counted).
    /// KEYS: bytes, sizes, due. ARGV: object keys. Returns 1.
    static let release = RedisScript(
        name: "releaseRetained",
        source: """
            local sizes = redis.call('HMGET', KEYS[2], unpack(ARGV))
            local bytes = 0
            for _, size in ipairs(sizes) do bytes = bytes + (tonumber(size) or 0) end
            redis.call('DECRBY', KEYS[1], bytes)
            redis.call('HDEL', KEYS[2], unpack(ARGV))
            redis.call('ZREM', KEYS[3], unpack(ARGV))
            return 1
            """)
}

/// The sweeper's Lua scripts. The queue and lease scripts touch only `{gc}` keys, the
/// garbage scripts only the keys of one stream, so each runs on a single Redis Cluster slot.
/// See `RedisKeys` for why the queue is written before the garbage it announces.
enum SweepScripts {
    /// Takes the lease when nobody holds it. KEYS: lease, fence. ARGV: lease milliseconds.
    /// Returns {new fencing token (it only grows), 0}, or {0, milliseconds until the lease
    /// ends (-1: no expiry)} when it is held.
    static let acquireLease = RedisScript(
        name: "sweepAcquireLease",
        source: """
            if redis.call('EXISTS', KEYS[1]) == 1 then return {0, redis.call('PTTL', KEYS[1])} end
            local token = redis.call('INCR', KEYS[2])
            redis.call('SET', KEYS[1], token, 'PX', ARGV[1])
            return {token, 0}
            """)

    /// Extends the lease if `token` still holds it. KEYS: lease. ARGV: token, lease milliseconds.
    /// Returns 1, or 0 when the lease was lost (expired, or taken by another sweeper).
    static let renewLease = RedisScript(
        name: "sweepRenewLease",
        source: """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
            redis.call('PEXPIRE', KEYS[1], ARGV[2])
            return 1
            """)

    /// Gives the lease up if `token` holds it. KEYS: lease. ARGV: token.
    static let releaseLease = RedisScript(
        name: "sweepReleaseLease",
        source: """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
            return redis.call('DEL', KEYS[1])
            """)

    /// Claims up to `limit` streams for the lease holder: first those still claimed under an
    /// older fencing token (their holder died or lost the lease, so they are taken over at once,
    /// not when that claim runs out), then due ones. Their queue time moves to claim-until, so a
    /// sweeper that dies holding them leaves them due again then, and each is recorded in the
    /// claims set under `token`.
    /// KEYS: lease, queue, claims. ARGV: token, now, limit, claim-until.
    /// Returns {"ok", number taken over, taken-over stream IDs..., due stream IDs...}, or
    /// {"lost"} when `token` no longer holds the lease. Claims of streams no longer queued are
    /// dropped last (see `settle` on removals).
    static let claim = RedisScript(
        name: "sweepClaim",
        source: """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return {'lost'} end
            local limit = tonumber(ARGV[3])
            local taken, gone, seen = {}, {}, {}
            local stale = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', '(' .. ARGV[1], 'LIMIT', 0, limit)
            for _, id in ipairs(stale) do
              if redis.call('ZSCORE', KEYS[2], id) then
                table.insert(taken, id)
                seen[id] = true
              else
                table.insert(gone, id)
              end
            end
            local claimed = {'ok', #taken}
            for _, id in ipairs(taken) do table.insert(claimed, id) end
            if #taken < limit then
              local due = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[2], 'LIMIT', 0, limit - #taken)
              for _, id in ipairs(due) do
                if not seen[id] then table.insert(claimed, id) end
              end
            end
            for i = 3, #claimed do
              redis.call('ZADD', KEYS[2], 'XX', ARGV[4], claimed[i])
              redis.call('ZADD', KEYS[3], ARGV[1], claimed[i])
            end
            if #gone > 0 then redis.call('ZREM', KEYS[3], unpack(gone)) end
            return claimed
            """)

    /// Settles claimed streams after their garbage was handled: each gets its next due time,
    /// or an earlier one a writer set meanwhile, or leaves the queue when it has no garbage
    /// and nobody added it for settle seconds (a writer adds the stream before its script
    /// writes the garbage, so a recent add may announce garbage not written yet).
    /// Each settled stream leaves the claims set.
    /// KEYS: lease, queue, touched, claims. ARGV: token, now, settle seconds, claim-until, then
    /// (stream ID, next due time or "") pairs.
    /// Returns "ok", or "lost" (nothing changed) when `token` no longer holds the lease.
    /// Removals come last, in one `ZREM` per set (per 1000 streams), so no key is read after it
    /// may have been emptied (see `PreviewScripts` on migrating slots).
    static let settle = RedisScript(
        name: "sweepSettle",
        source: """
            if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 'lost' end
            local now = tonumber(ARGV[2])
            local settle = tonumber(ARGV[3])
            local claimed = tonumber(ARGV[4])
            local gone, settled = {}, {}
            for i = 5, #ARGV, 2 do
              local id = ARGV[i]
              table.insert(settled, id)
              local target = tonumber(ARGV[i + 1])
              local current = tonumber(redis.call('ZSCORE', KEYS[2], id))
              if current and current ~= claimed then
                target = math.min(target or current, current)
              end
              if target then
                redis.call('ZADD', KEYS[2], target, id)
              else
                local touched = tonumber(redis.call('ZSCORE', KEYS[3], id))
                if touched and touched > now - settle then
                  redis.call('ZADD', KEYS[2], touched + settle, id)
                else
                  table.insert(gone, id)
                end
              end
            end
            for i = 1, #gone, 1000 do
              local chunk = {unpack(gone, i, math.min(i + 999, #gone))}
              redis.call('ZREM', KEYS[2], unpack(chunk))
              redis.call('ZREM', KEYS[3], unpack(chunk))
            end
            for i = 1, #settled, 1000 do
              redis.call('ZREM', KEYS[4], unpack(settled, i, math.min(i + 999, #settled)))
            end
            return 'ok'
            """)

    /// Retires the stream's preview if it has expired (a backstop for a preview the feed
    /// index lost: the stream was queued before its publish script ran), then condemns the
    /// stream's due garbage and claims what is due for deletion. Due keys leave the garbage
    /// set; a key the live preview uses is dropped (counted as kept), any other moves to the
    /// deleting set, where a commit can no longer publish it. Then up to `limit` due deleting
    /// keys are claimed until claim-until; "due" for the deleting set means by claim-due, which
    /// is now, or claim-until for a stream taken over from a dead sweeper (whose claims ran to at
    /// most its now plus the claim time; a key in delete backoff may so be retried early, once).
    /// With webhooks on, a retired preview's `preview.removed` (expired) goes to the outbox, with
    /// its final figures, which then expire after the retention (`FigureScripts`).
    /// KEYS: preview, garbage, deleting, version, likers, webhook outbox, then the figure keys
    /// (`RedisKeys.figureKeys`).
    /// ARGV: now, limit, claim-until, retire-until, keep-after-end seconds, claim-due, webhook
    /// argument ("" = no event), figure retention seconds.
    /// Returns {retired version or 0, kept, claimed keys...}.
    static let collect = RedisScript(
        name: "sweepCollect",
        source: WebhookScripts.outboxFunction + FigureScripts.functions + """
            local now = tonumber(ARGV[1])
            local limit = tonumber(ARGV[2])
            local live = redis.call('HMGET', KEYS[1], 'version', 'expiresAt', 'movieKey', 'thumbnailKey', 'uploadId')
            local retired = 0
            if live[1] and tonumber(live[2] or '0') <= now then
              for i = 3, 4 do
                if live[i] then redis.call('ZADD', KEYS[2], ARGV[4], live[i]) end
              end
              redis.call('DEL', KEYS[1])
              redis.call('EXPIRE', KEYS[4], ARGV[5])
              redis.call('EXPIRE', KEYS[5], ARGV[5])
              retired = tonumber(live[1])
              figures_close(KEYS[7], KEYS[8], KEYS[9], live[1], tonumber(live[2] or '0'), ARGV[8], true)
              webhook_event(KEYS[6], ARGV[7], 0, 'preview.removed', ARGV[1], 'previewVersion', live[1],
                'uploadId', live[5] or '', 'reason', 'expired', unpack(figures_final(KEYS[7], live[1])))
              live = {}
            end
            local kept = 0
            for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)) do
              redis.call('ZREM', KEYS[2], key)
              if key == live[3] or key == live[4] then
                kept = kept + 1
              else
                redis.call('ZADD', KEYS[3], now, key)
              end
            end
            local claimed = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[6], 'LIMIT', 0, limit)
            for _, key in ipairs(claimed) do redis.call('ZADD', KEYS[3], ARGV[3], key) end
            table.insert(claimed, 1, kept)
            table.insert(claimed, 1, retired)
            return claimed
            """)

    /// What `collect` would claim, without changing anything (for `--dry-run`).
    /// KEYS: preview, garbage, deleting. ARGV: now, limit. Returns the keys.
    static let peek = RedisScript(
        name: "sweepPeek",
        source: """
            local live = redis.call('HMGET', KEYS[1], 'movieKey', 'thumbnailKey')
            local keys = {}
            for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
              if key ~= live[1] and key ~= live[2] then table.insert(keys, key) end
            end
            for _, key in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
              table.insert(keys, key)
            end
            return keys
            """)

    /// Records the outcome of deletes: deleted keys are forgotten; failed ones wait
    /// base × 2^(attempts-1) seconds (at most max) before the next try. The removals come last,
    /// so no key is read after it may have been emptied (see `PreviewScripts` on migrating slots).
    /// With webhooks on, a replaced preview whose objects are now both deleted (recorded in the
    /// replaced-objects hash by the commit that replaced it) gets its `preview.removed`
    /// (replaced) in the outbox, and its records go.
    /// KEYS: garbage, deleting, attempts, preview, replaced objects, webhook outbox. ARGV: now,
    /// base seconds, max seconds, number of deleted keys, webhook argument ("" = no events), the
    /// deleted keys, then the failed keys.
    /// Returns when the stream needs a look next: the earliest time in either set, or the
    /// live preview's expiry if sooner; -1 when there is nothing to look at. Times are clamped
    /// to 0...2^53, so a hostile `inf` or `-inf` score still becomes an integer reply.
    static let acknowledge = RedisScript(
        name: "sweepAcknowledge",
        source: WebhookScripts.outboxFunction + """
            local now = tonumber(ARGV[1])
            local deleted = tonumber(ARGV[4])
            for i = 6 + deleted, #ARGV do
              local attempts = redis.call('HINCRBY', KEYS[3], ARGV[i], 1)
              local delay = math.min(tonumber(ARGV[2]) * 2 ^ math.min(attempts - 1, 30), tonumber(ARGV[3]))
              redis.call('ZADD', KEYS[2], now + math.floor(delay), ARGV[i])
            end
            local next = tonumber(redis.call('HGET', KEYS[4], 'expiresAt') or '-1') or 0
            if next ~= -1 then next = math.max(next, 0) end
            local gone = {}
            for i = 6, 5 + deleted do gone[ARGV[i]] = true end
            local forget = {}
            if ARGV[5] ~= '' and deleted > 0 then
              local records = redis.call('HMGET', KEYS[5], unpack(ARGV, 6, 5 + deleted))
              local number, announced = 0, {}
              for i = 1, deleted do
                if records[i] then
                  table.insert(forget, ARGV[5 + i])
                  local version, upload, other = string.match(records[i], '^(%S+) (%S*) (%S+)$')
                  -- Gone once both objects are: the other deleted now, or before (its record went then).
                  if version and not announced[version]
                    and (gone[other] or redis.call('HEXISTS', KEYS[5], other) == 0) then
                    announced[version] = true
                    number = webhook_event(KEYS[6], ARGV[5], number, 'preview.removed', ARGV[1],
                      'previewVersion', version, 'uploadId', upload, 'reason', 'replaced')
                  end
                end
              end
            end
            for k = 1, 2 do
              -- the earliest entry that stays: deleted keys are removed below, last
              local entries = redis.call('ZRANGE', KEYS[k], 0, k == 2 and deleted or 0, 'WITHSCORES')
              for j = 1, #entries, 2 do
                if not (k == 2 and gone[entries[j]]) then
                  local score = math.max(tonumber(entries[j + 1]), 0)
                  if next < 0 or score < next then next = score end
                  break
                end
              end
            end
            if deleted > 0 then
              local keys = {unpack(ARGV, 6, 5 + deleted)}
              redis.call('ZREM', KEYS[2], unpack(keys))
              redis.call('HDEL', KEYS[3], unpack(keys))
            end
            if #forget > 0 then redis.call('HDEL', KEYS[5], unpack(forget)) end
            return math.min(next, 2 ^ 53)
            """)
}

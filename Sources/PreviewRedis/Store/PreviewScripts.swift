/// The Lua scripts that make each multi-step change of one stream atomic. Every script
/// touches only keys of one stream (hash tag `{s:<id>}`), so it is Redis Cluster safe;
/// see `RedisKeys` for the layout and for how the global indexes stay consistent.
///
/// While its slot migrates, a cluster node runs a script only when every key it names exists
/// there, and then refuses (mid-script, after earlier writes) any command on a key that no
/// longer exists. So no script touches a key after a command of its own may have deleted it
/// (emptied a set or hash, DEL): counts are taken before removals, and a hash is replaced
/// field by field rather than deleted and written again. `recordUpload` always names a new
/// upload key, so it never runs on a node the slot is leaving.
enum PreviewScripts {
    /// Records an issued upload unless its stream already has `max` pending ones or its objects
    /// would take the stream's retained bytes over their limit (`RetainedScripts`: counted here,
    /// at their signed sizes, until the commit deadline + 1), and enters its objects in the
    /// stream's garbage set at the commit deadline + 1 (committing takes them out again), so an
    /// abandoned upload is collected.
    /// KEYS: upload, pending, garbage, retained bytes, retained sizes, retained due.
    /// ARGV: uploadId, now, commitDeadline, record TTL seconds, max, movie key, thumbnail key,
    /// max retained bytes (0: no limit), movie bytes, thumbnail bytes, then field/value pairs of
    /// the upload hash.
    /// Returns {"recorded", 0}, {"full", the oldest pending upload's commit deadline}, or
    /// {"quota", when the stream's oldest counted object stops counting}. Pending uploads past
    /// their deadline (score < now: commit refuses them) are trimmed first, so they stop
    /// counting. The record's TTL (an hour past the deadline) only cleans up.
    static let recordUpload = RedisScript(
        name: "recordUpload",
        source: RetainedScripts.functions + """
            local now = tonumber(ARGV[2])
            local retained = {KEYS[4], KEYS[5], KEYS[6]}
            redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', '(' .. ARGV[2])
            if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
              local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
              return {'full', tonumber(oldest[2])}
            end
            local gone, expiredBytes = retained_expired(retained, now)
            local over = retained_over(retained, now, tonumber(ARGV[8]), tonumber(ARGV[9]) + tonumber(ARGV[10]),
              expiredBytes)
            if over then
              retained_drop(retained, gone, expiredBytes, now)
              return {'quota', over}
            end
            redis.call('HSET', KEYS[1], unpack(ARGV, 11))
            redis.call('EXPIRE', KEYS[1], ARGV[4])
            redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
            local last = redis.call('ZRANGE', KEYS[2], -1, -1, 'WITHSCORES')
            redis.call('EXPIRE', KEYS[2], math.max(1, tonumber(last[2]) - now + 1))
            local due = tonumber(ARGV[3]) + 1
            redis.call('ZADD', KEYS[3], due, ARGV[6], due, ARGV[7])
            retained_set(retained, ARGV[6], tonumber(ARGV[9]), due)
            retained_set(retained, ARGV[7], tonumber(ARGV[10]), due)
            retained_drop(retained, gone, expiredBytes, now)
            retained_expire(retained, now)
            return {'recorded', 0}
            """)

    /// Publishes a verified upload as the stream's new preview version.
    /// KEYS: preview, version, upload, garbage, likers, pending, deleting, retained bytes,
    /// retained sizes, retained due, webhook outbox, replaced objects, figures hash, watch URL
    /// (kept for the figure retention from this commit on), impressions and opens estimates.
    /// ARGV: uploadId, retire-until (when replaced objects may be deleted), now, movie key,
    /// thumbnail key, change channel, change message prefix (`FeedChange`), retained-until (the
    /// new objects' due time: preview expiry + grace), movie bytes, thumbnail bytes, webhook
    /// argument ("" = no events), figure versions kept (0: figures off), figure retention
    /// seconds, then field/value pairs. The new objects count in the stream's retained bytes at their real
    /// sizes until retained-until; the replaced ones until retire-until.
    /// Returns {status, likes, hash...}: status "published", "same" (this upload is already the
    /// live preview: an idempotent repeat) or "expired" (the upload is gone, past its commit
    /// deadline, or already condemned by the sweeper). The upload record is consumed (and
    /// leaves the pending set) and its objects leave the garbage set: they now belong to the
    /// preview. The replaced preview's objects enter the garbage set until retire-until. The
    /// version counter and likers become persistent while the stream is live. With webhooks on,
    /// the outbox gets `preview.replaced` when a live preview was replaced (whose objects are
    /// then recorded in the replaced-objects hash for their `preview.removed`), else
    /// `preview.published`, after a `preview.removed` (expired) for an expired preview not swept yet;
    /// both carry the new version's description fields that are set, as `details.<name>`.
    /// The version that was live stops counting figures (`FigureScripts`; its final figures ride
    /// in its `preview.replaced` or `preview.removed`) and the new one starts.
    static let publish = RedisScript(
        name: "publish",
        source: RetainedScripts.functions + WebhookScripts.outboxFunction + FigureScripts.functions + """
            local current = redis.call('HGET', KEYS[1], 'uploadId')
            if current == ARGV[1] then
              return {'same', redis.call('SCARD', KEYS[5]), redis.call('HGETALL', KEYS[1])}
            end
            local deadline = redis.call('HGET', KEYS[3], 'commitDeadline')
            if not deadline or tonumber(deadline) < tonumber(ARGV[3]) then
              return {'expired', 0, {}}
            end
            if redis.call('ZSCORE', KEYS[7], ARGV[4]) or redis.call('ZSCORE', KEYS[7], ARGV[5]) then
              return {'expired', 0, {}}
            end
            local old = redis.call('HMGET', KEYS[1], 'movieKey', 'thumbnailKey')
            local previous = redis.call('HMGET', KEYS[1], 'version', 'uploadId', 'expiresAt')
            for _, key in ipairs(old) do
              if key then
                redis.call('ZADD', KEYS[4], ARGV[2], key)
                redis.call('ZADD', KEYS[10], 'XX', ARGV[2], key)
              end
            end
            redis.call('ZREM', KEYS[4], ARGV[4], ARGV[5])
            local retained = {KEYS[8], KEYS[9], KEYS[10]}
            retained_set(retained, ARGV[4], tonumber(ARGV[9]), tonumber(ARGV[8]))
            retained_set(retained, ARGV[5], tonumber(ARGV[10]), tonumber(ARGV[8]))
            retained_expire(retained, tonumber(ARGV[3]))
            local version = redis.call('INCR', KEYS[2])
            redis.call('PERSIST', KEYS[2])
            redis.call('PERSIST', KEYS[5])
            local stale = redis.call('HKEYS', KEYS[1])
            redis.call('HSET', KEYS[1], 'version', version, unpack(ARGV, 14))
            local fresh = {version = true}
            for i = 14, #ARGV, 2 do fresh[ARGV[i]] = true end
            for _, field in ipairs(stale) do
              if not fresh[field] then redis.call('HDEL', KEYS[1], field) end
            end
            redis.call('DEL', KEYS[3])
            redis.call('ZREM', KEYS[6], ARGV[1])
            redis.call('PUBLISH', ARGV[6], ARGV[7] .. ' ' .. version)
            local now = tonumber(ARGV[3])
            local expires = redis.call('HGET', KEYS[1], 'expiresAt') or '0'
            local from = previous[2] or ''
            local final = {}
            if previous[1] then
              figures_close(KEYS[13], KEYS[15], KEYS[16], previous[1], math.min(now, tonumber(previous[3] or '0')),
                ARGV[13], false)
              final = figures_final(KEYS[13], previous[1])
            end
            figures_open(KEYS[13], KEYS[15], KEYS[16], version, now, tonumber(ARGV[12]), tonumber(ARGV[13]))
            redis.call('EXPIRE', KEYS[14], ARGV[13])
            -- The new version's description (PreviewDescription's fields that are set), as details.<name>.
            local details = {}
            local names = {'title', 'category', 'language', 'mature', 'altText'}
            for i, value in ipairs(redis.call('HMGET', KEYS[1], unpack(names))) do
              if value then
                table.insert(details, 'details.' .. names[i])
                table.insert(details, value)
              end
            end
            if previous[1] and tonumber(previous[3] or '0') > now then
              for _, value in ipairs(final) do table.insert(details, value) end
              webhook_event(KEYS[11], ARGV[11], 0, 'preview.replaced', ARGV[3], 'previewVersion', version,
                'uploadId', ARGV[1], 'expiresAt', expires, 'previousVersion', previous[1], 'previousUploadId', from,
                unpack(details))
              if ARGV[11] ~= '' and old[1] and old[2] then
                local owner = previous[1] .. ' ' .. from .. ' '
                redis.call('HSET', KEYS[12], old[1], owner .. old[2], old[2], owner .. old[1])
                redis.call('EXPIRE', KEYS[12], math.max(redis.call('TTL', KEYS[12]), tonumber(ARGV[2]) - now + 604800))
              end
            else
              local number = 0
              if previous[1] then
                number = webhook_event(KEYS[11], ARGV[11], 0, 'preview.removed', ARGV[3], 'previewVersion', previous[1],
                  'uploadId', from, 'reason', 'expired', unpack(final))
              end
              webhook_event(KEYS[11], ARGV[11], number, 'preview.published', ARGV[3], 'previewVersion', version,
                'uploadId', ARGV[1], 'expiresAt', expires, unpack(details))
            end
            return {'published', redis.call('SCARD', KEYS[5]), redis.call('HGETALL', KEYS[1])}
            """)

    /// Removes the live preview (end of stream, or the sweeper finding it expired), moving its
    /// objects to the stream's garbage set for the grace period, and starts the expiry of the
    /// stream's version counter and likers.
    /// KEYS: preview, garbage, version, likers, webhook outbox, then the figure keys
    /// (`RedisKeys.figureKeys`). ARGV: retire-until,
    /// expired-at ("" = remove whatever is live; otherwise only if the preview's expiresAt <= this
    /// time, so a fresher commit survives), keep-after-end seconds, change channel, change message
    /// prefix, webhook argument ("" = no event), now, figure retention seconds. With webhooks on,
    /// the outbox gets `preview.removed` (reason `ended` without an expired-at, else `expired`)
    /// with the version's final figures; the figures expire after the retention.
    /// Returns the removed version, or 0 when nothing was removed.
    static let retire = RedisScript(
        name: "retire",
        source: WebhookScripts.outboxFunction + FigureScripts.functions + """
            local fields = redis.call('HMGET', KEYS[1], 'version', 'expiresAt', 'movieKey', 'thumbnailKey', 'uploadId')
            if not fields[1] then return 0 end
            if ARGV[2] ~= '' and tonumber(fields[2] or '0') > tonumber(ARGV[2]) then return 0 end
            for i = 3, 4 do
              if fields[i] then redis.call('ZADD', KEYS[2], ARGV[1], fields[i]) end
            end
            redis.call('DEL', KEYS[1])
            redis.call('EXPIRE', KEYS[3], ARGV[3])
            redis.call('EXPIRE', KEYS[4], ARGV[3])
            redis.call('PUBLISH', ARGV[4], ARGV[5] .. ' ' .. fields[1])
            figures_close(KEYS[6], KEYS[7], KEYS[8], fields[1], math.min(tonumber(ARGV[7]), tonumber(fields[2] or '0')),
              ARGV[8], true)
            webhook_event(KEYS[5], ARGV[6], 0, 'preview.removed', ARGV[7], 'previewVersion', fields[1],
              'uploadId', fields[5] or '', 'reason', ARGV[2] == '' and 'ended' or 'expired',
              unpack(figures_final(KEYS[6], fields[1])))
            return tonumber(fields[1])
            """)

    /// Likes or unlikes a live stream. KEYS: preview, likers, and with figures on the figures
    /// hash. ARGV: subject, "1" like / "0" unlike, now, change channel, change message prefix. A
    /// like that changed the likers counts in the version's figures. Returns {likes, version, sequence}
    /// (a `LikeCount`: each change of this version's likers is numbered in the preview's
    /// `likeSeq` field), or -1 when the stream has no live preview.
    static let like = RedisScript(
        name: "like",
        source: FigureScripts.functions + """
            local fields = redis.call('HMGET', KEYS[1], 'expiresAt', 'version', 'likeSeq')
            if not fields[1] or tonumber(fields[1]) <= tonumber(ARGV[3]) then return -1 end
            local count = redis.call('SCARD', KEYS[2])
            local changed
            if ARGV[2] == '1' then
              changed = redis.call('SADD', KEYS[2], ARGV[1])
              count = count + changed
              if changed == 1 and KEYS[3] then figures_count(KEYS[3], '', fields[2], 'likes', '') end
            else
              changed = redis.call('SREM', KEYS[2], ARGV[1])
              count = count - changed
            end
            local version = tonumber(fields[2] or '0')
            local sequence = tonumber(fields[3] or '0')
            if changed == 1 then
              sequence = redis.call('HINCRBY', KEYS[1], 'likeSeq', 1)
              redis.call('PUBLISH', ARGV[4], ARGV[5] .. ' ' .. count .. ' ' .. version .. ' ' .. sequence)
            end
            return {count, version, sequence}
            """)
}

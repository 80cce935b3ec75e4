/// The Lua of webhook delivery (`RedisKeys+Webhooks` has the layout). The outbox function runs
/// inside the scripts that make the changes (`PreviewScripts`, `SweepScripts`), on the stream's
/// slot; `finishOutbox` also runs on a stream's slot; every other script touches only `{hooks}`
/// keys. Each is Redis Cluster safe, and none touches a key after a command of its own may have
/// deleted it (see `PreviewScripts` on migrating slots).
enum WebhookScripts {
    /// `webhook_event(outbox, nonce, number, type, createdAt, field, value, ...)` appends one event
    /// to a stream's outbox, with the ID `evt_<nonce><number as 4 hex digits>`, and returns the
    /// next number; with an empty nonce (webhooks off) it writes nothing.
    static let outboxFunction = """
        local function webhook_event(outbox, nonce, number, kind, created, ...)
          if nonce == '' then return number end
          redis.call('XADD', outbox, '*', 'id', 'evt_' .. nonce .. string.format('%04x', number), 'type', kind,
            'createdAt', created, ...)
          return number + 1
        end

        """

    /// Takes up to `limit` streams whose outbox is due for a look, and makes each due again at
    /// look-again (a relay that dies mid-way leaves them due then).
    /// KEYS: outboxes. ARGV: now, limit, look-again. Returns the stream IDs.
    static let claimOutboxes = RedisScript(
        name: "webhookClaimOutboxes",
        source: """
            local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
            for _, id in ipairs(due) do redis.call('ZADD', KEYS[1], ARGV[3], id) end
            return due
            """)

    /// Removes relayed entries from a stream's outbox, and the outbox itself once empty.
    /// KEYS: outbox. ARGV: the relayed entry IDs. Returns the entries left.
    static let finishOutbox = RedisScript(
        name: "webhookFinishOutbox",
        source: """
            if #ARGV > 0 then redis.call('XDEL', KEYS[1], unpack(ARGV)) end
            local left = redis.call('XLEN', KEYS[1])
            if left == 0 then redis.call('DEL', KEYS[1]) end
            return left
            """)

    /// After a relay pass: a stream with entries left is due again now; one with an empty outbox
    /// leaves the index unless an event was announced for it in the last settle seconds (its
    /// script may not have run yet: the index is written first). One announced in the last 2 s
    /// is looked at again 2 s after that (its script is most likely just running), the others
    /// when the claim said. Removals come last.
    /// KEYS: outboxes, touched. ARGV: now, settle seconds, then (stream ID, entries left) pairs.
    static let settleOutboxes = RedisScript(
        name: "webhookSettleOutboxes",
        source: """
            local now = tonumber(ARGV[1])
            local settle = tonumber(ARGV[2])
            local gone = {}
            for i = 3, #ARGV, 2 do
              local touched = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]) or '0')
              if tonumber(ARGV[i + 1]) > 0 then
                redis.call('ZADD', KEYS[1], 'LT', now, ARGV[i])
              elseif touched <= now - settle then
                table.insert(gone, ARGV[i])
              elseif touched > now - 2 then
                redis.call('ZADD', KEYS[1], 'LT', touched + 2, ARGV[i])
              end
            end
            for i = 1, #gone, 1000 do
              local chunk = {unpack(gone, i, math.min(i + 999, #gone))}
              redis.call('ZREM', KEYS[1], unpack(chunk))
              redis.call('ZREM', KEYS[2], unpack(chunk))
            end
            return #gone
            """)

    /// A delivery succeeded: acknowledged and deleted, so the stream holds only deliveries still
    /// to make. KEYS: deliveries. ARGV: group, entry ID. Returns 1 when it was still pending.
    static let acknowledge = RedisScript(
        name: "webhookAcknowledge",
        source: """
            local acked = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            return acked
            """)

    /// Moves a delivery that ran out of time to the dead letters, if `consumer` still owns it (a
    /// delivery another process claimed meanwhile is that one's to finish).
    /// KEYS: deliveries, dead. ARGV: group, entry ID, consumer, dead-letter max length, then the
    /// dead letter's field/value pairs. Returns 1 when moved, 0 when not owned.
    static let deadLetter = RedisScript(
        name: "webhookDeadLetter",
        source: """
            local owner = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
            if #owner == 0 or owner[1][2] ~= ARGV[3] then return 0 end
            redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', unpack(ARGV, 5))
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            return 1
            """)

    /// Puts a dead letter back into its delivery stream (a fresh entry, so the group reads it as
    /// new) and removes it from the dead letters, if it is still there.
    /// KEYS: dead, deliveries. ARGV: dead entry ID, then the delivery's field/value pairs.
    /// Returns 1 when replayed, 0 when no such dead letter.
    static let replay = RedisScript(
        name: "webhookReplay",
        source: """
            if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then return 0 end
            redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
            redis.call('XDEL', KEYS[1], ARGV[1])
            return 1
            """)
}

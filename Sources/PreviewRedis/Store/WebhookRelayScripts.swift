/// The Lua of the relay from the streams' outboxes to the delivery streams
/// (`PreviewStore+WebhookRelay`). `finishOutbox` runs on a stream's slot, the others on `{hooks}`;
/// the same Redis Cluster rules as `WebhookScripts` hold.
enum WebhookRelayScripts {
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

    /// Appends a stream's outbox events to one endpoint's delivery stream while that stream has
    /// fewer than `window` deliveries queued there, counting them in the queued hash.
    /// KEYS: deliveries, queued. ARGV: stream ID, window, then per event its number of
    /// field/value items and the items. Returns how many events were appended (the first ones).
    static let relayDeliveries = RedisScript(
        name: "webhookRelayDeliveries",
        source: """
            local room = tonumber(ARGV[2]) - tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '0')
            local added = 0
            local i = 3
            while i <= #ARGV and added < room do
              local count = tonumber(ARGV[i])
              redis.call('XADD', KEYS[1], '*', unpack(ARGV, i + 1, i + count))
              added = added + 1
              i = i + count + 1
            end
            if added > 0 then redis.call('HINCRBY', KEYS[2], ARGV[1], added) end
            return added
            """)

    /// Records how far each endpoint has been relayed (a cursor only moves forward), and the
    /// drops reported; trims the entries every endpoint has; deletes the outbox and its cursors
    /// once empty. KEYS: outbox, relayed. ARGV: the drop total reported, then (endpoint, last
    /// relayed entry ID or "") per endpoint of the relaying process. Returns the entries left.
    static let finishOutbox = RedisScript(
        name: "webhookFinishOutbox",
        source: """
            local function parse(id)
              local ms, seq = string.match(id or '', '^(%d+)-(%d+)$')
              if not ms then return nil end
              return {tonumber(ms), tonumber(seq), ms}
            end
            local function before(a, b)
              return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2])
            end
            local least = nil
            local everyone = true
            for i = 2, #ARGV, 2 do
              local stored = redis.call('HGET', KEYS[2], ARGV[i])
              local cursor = parse(stored)
              local offered = parse(ARGV[i + 1])
              if offered and (not cursor or before(cursor, offered)) then
                redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1])
                cursor = offered
              end
              if not cursor then
                everyone = false
              elseif not least or before(cursor, least) then
                least = cursor
              end
            end
            local reported = tonumber(redis.call('HGET', KEYS[2], 'dropped') or '0')
            if tonumber(ARGV[1]) > reported then redis.call('HSET', KEYS[2], 'dropped', ARGV[1]) end
            if everyone and least then
              redis.call('XTRIM', KEYS[1], 'MINID', least[3] .. '-' .. string.format('%.0f', least[2] + 1))
            end
            local left = redis.call('XLEN', KEYS[1])
            if left == 0 then redis.call('DEL', KEYS[1], KEYS[2]) end
            return left
            """)

    /// After a relay pass: a stream with entries left is due again at the time given (now when
    /// the relay can go on; later when every endpoint it waits for has its window full, as an
    /// answer or a dead letter makes it due again at once); one with an empty outbox leaves the
    /// index unless an event was announced for it in the last settle seconds (its script may not
    /// have run yet: the index is written first). One announced in the last 2 s is looked at
    /// again 2 s after that (its script is most likely just running), the others when the claim
    /// said. Removals come last.
    /// KEYS: outboxes, touched. ARGV: now, settle seconds, then (stream ID, entries left, due
    /// time) triples.
    static let settleOutboxes = RedisScript(
        name: "webhookSettleOutboxes",
        source: """
            local now = tonumber(ARGV[1])
            local settle = tonumber(ARGV[2])
            local gone = {}
            for i = 3, #ARGV, 3 do
              local touched = tonumber(redis.call('ZSCORE', KEYS[2], ARGV[i]) or '0')
              if tonumber(ARGV[i + 1]) > 0 then
                redis.call('ZADD', KEYS[1], 'LT', ARGV[i + 2], ARGV[i])
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
}

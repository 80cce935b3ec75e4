/// The Lua of webhook delivery (`RedisKeys+Webhooks` has the layout). The outbox function runs
/// inside the scripts that make the changes (`PreviewScripts`, `SweepScripts`), on the stream's
/// slot; the relay's scripts are in `WebhookRelayScripts`; the ones here after the outbox touch
/// only `{hooks}` keys. Each is Redis Cluster safe, and none touches a key after a command of its
/// own may have deleted it (see `PreviewScripts` on migrating slots).
enum WebhookScripts {
    /// The outbox field that carries, on each entry written after the first drop, how many
    /// events this outbox has dropped so far (a running total, so a relay that misses entries
    /// still counts every drop once).
    static let droppedField = "dropped"

    /// `webhook_event(outbox, argument, number, type, createdAt, field, value, ...)` appends one
    /// event to a stream's outbox, with the ID `evt_<nonce><number as 4 hex digits>`, and returns
    /// the next number. `argument` is `PreviewStore.webhookArgument`: "<nonce> <limit>", or ""
    /// (webhooks off: nothing is written). An outbox already holding `limit` events first drops
    /// its oldest (a receiver wants the newest state; the relay counts the drop).
    static let outboxFunction = """
        local function webhook_event(outbox, argument, number, kind, created, ...)
          if argument == '' then return number end
          local nonce, limit = string.match(argument, '^(%x+) (%d+)$')
          local fields = {'id', 'evt_' .. nonce .. string.format('%04x', number), 'type', kind, 'createdAt', created, ...}
          local dropped = 0
          local newest = redis.call('XREVRANGE', outbox, '+', '-', 'COUNT', 1)[1]
          if newest then
            for i = 1, #newest[2], 2 do
              if newest[2][i] == 'dropped' then dropped = tonumber(newest[2][i + 1]) end
            end
          end
          if redis.call('XLEN', outbox) >= tonumber(limit) then
            dropped = dropped + redis.call('XTRIM', outbox, 'MAXLEN', tonumber(limit) - 1)
          end
          if dropped > 0 then
            table.insert(fields, 'dropped')
            table.insert(fields, tostring(dropped))
          end
          redis.call('XADD', outbox, '*', unpack(fields))
          return number + 1
        end

        """

    /// `release(queued, outboxes, stream, now)`: one delivery of `stream` left its delivery
    /// stream (answered or dead-lettered), so the stream may have another relayed: its outbox,
    /// if indexed, is due for the relay now.
    static let releaseFunction = """
        local function release(queued, outboxes, stream, now)
          if stream == '' then return end
          if redis.call('HINCRBY', queued, stream, -1) <= 0 then redis.call('HDEL', queued, stream) end
          redis.call('ZADD', outboxes, 'XX', 'LT', now, stream)
        end

        """

    /// A delivery succeeded: acknowledged and deleted, so the stream holds only deliveries still
    /// to make, and its stream's place released. KEYS: deliveries, queued, outboxes. ARGV: group,
    /// entry ID, stream ID, now. Returns 1 when it was still pending.
    static let acknowledge = RedisScript(
        name: "webhookAcknowledge",
        source: releaseFunction + """
            local acked = redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            if acked == 1 then release(KEYS[2], KEYS[3], ARGV[3], ARGV[4]) end
            return acked
            """)

    /// Moves a delivery that ran out of time to the dead letters, if `consumer` still owns it (a
    /// delivery another process claimed meanwhile is that one's to finish), releasing its
    /// stream's place. KEYS: deliveries, dead, queued, outboxes. ARGV: group, entry ID, consumer,
    /// dead-letter max length, stream ID, now, then the dead letter's field/value pairs.
    /// Returns 1 when moved, 0 when not owned.
    static let deadLetter = RedisScript(
        name: "webhookDeadLetter",
        source: releaseFunction + """
            local owner = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[2], ARGV[2], 1)
            if #owner == 0 or owner[1][2] ~= ARGV[3] then return 0 end
            redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[4], '*', unpack(ARGV, 7))
            redis.call('XACK', KEYS[1], ARGV[1], ARGV[2])
            redis.call('XDEL', KEYS[1], ARGV[2])
            release(KEYS[3], KEYS[4], ARGV[5], ARGV[6])
            return 1
            """)

    /// Puts a dead letter back into its delivery stream (a fresh entry, so the group reads it as
    /// new, counted in its stream's queued deliveries) and removes it from the dead letters, if
    /// it is still there. KEYS: dead, deliveries, queued. ARGV: dead entry ID, stream ID, then
    /// the delivery's field/value pairs. Returns 1 when replayed, 0 when no such dead letter.
    static let replay = RedisScript(
        name: "webhookReplay",
        source: """
            if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then return 0 end
            redis.call('XADD', KEYS[2], '*', unpack(ARGV, 3))
            if ARGV[2] ~= '' then redis.call('HINCRBY', KEYS[3], ARGV[2], 1) end
            redis.call('XDEL', KEYS[1], ARGV[1])
            return 1
            """)
}

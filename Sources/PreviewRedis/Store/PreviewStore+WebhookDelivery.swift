public import PreviewCore

/// The consumer group side of webhook delivery (`RedisKeys+Webhooks`): read new deliveries,
/// claim failed ones for a retry once their backoff is over, acknowledge, dead-letter, replay,
/// and the gauges of what waits.
extension PreviewStore {
    /// About how many dead letters are kept (`XADD ... MAXLEN ~`); older ones are dropped.
    public static let deadLetterLimit = 100_000

    // MARK: Delivery

    /// One delivery taken from a delivery stream: the event to one URL, and which attempt this is.
    public struct WebhookDelivery: Sendable, Equatable {
        /// The entry's ID in its delivery stream.
        public var entryId: String
        public var endpoint: String
        /// The event; nil for an entry this version cannot read (dead-lettered at once).
        public var event: WebhookEvent?
        public var url: String
        /// Unix seconds after which it is not tried again.
        public var deadline: Int64
        /// This attempt's number: 1 for the first.
        public var attempts: Int64
        /// The entry's fields as stored, for the dead letter.
        public var fields: [String: String]

        /// The stream the event is about, as its queued deliveries are counted ("" if unreadable).
        var streamId: String { PreviewStore.streamIdText(fields) }
    }

    /// The stream ID field of a delivery or dead letter, "" when it holds none that reads as one.
    static func streamIdText(_ fields: [String: String]) -> String {
        fields[WebhookEvent.Field.streamId].flatMap(StreamID.parse).map(String.init) ?? ""
    }

    /// Creates the consumer group of a delivery stream (and the stream) unless it exists. From
    /// ID 0, so deliveries relayed before the group existed are read too.
    public func ensureWebhookGroup(endpoint: String) throws {
        do {
            _ = try pool.withConnection { connection in
                try connection.command([
                    "XGROUP", "CREATE", keys.webhookDeliveries(endpoint: endpoint), RedisKeys.webhookGroup, "0",
                    "MKSTREAM",
                ])
            }
        } catch let error as RedisError where error.message.hasPrefix("BUSYGROUP") {
            return
        }
    }

    /// Up to `limit` deliveries nobody has read yet, now owned by `consumer` (first attempts).
    public func newWebhookDeliveries(endpoint: String, consumer: String, limit: Int) throws -> [WebhookDelivery] {
        let key = keys.webhookDeliveries(endpoint: endpoint)
        let read = {
            try self.pool.withConnection { connection in
                try connection.command([
                    "XREADGROUP", "GROUP", RedisKeys.webhookGroup, consumer, "COUNT", String(limit), "STREAMS", key,
                    ">",
                ])
            }
        }
        let reply: RedisValue
        do { reply = try read() } catch let error as RedisError where error.message.hasPrefix("NOGROUP") {
            // Redis lost the group (restarted without persistence, flushed): make it again.
            try ensureWebhookGroup(endpoint: endpoint)
            reply = try read()
        }
        // [[key, [[id, [field, value...]], ...]]], or null when nothing is new.
        guard let streams = reply.array, let first = streams.first?.array, first.count == 2 else { return [] }
        return (first[1].array ?? []).compactMap { Self.delivery($0, endpoint: endpoint, attempts: 1) }
    }

    /// Up to `limit` deliveries whose last attempt failed (or whose process died) and that have
    /// waited out their backoff, claimed for `consumer`. The pending list is scanned from
    /// `cursor` on, a page per call, so a long list of deliveries still waiting does not hide
    /// those behind it; `cursor` comes back as where the next call goes on ("-": the start).
    /// Entries in `excluding` (in flight here) are skipped.
    public func dueWebhookRetries(
        endpoint: String, consumer: String, policy: WebhookRetryPolicy, cursor: inout String, limit: Int,
        excluding: Set<String> = []
    ) throws -> [WebhookDelivery] {
        let key = keys.webhookDeliveries(endpoint: endpoint)
        let page = 200
        let pending = try pool.withConnection { connection in
            try connection.command([
                "XPENDING", key, RedisKeys.webhookGroup, "IDLE", String(policy.minimumClaimIdleMilliseconds), cursor,
                "+", String(page),
            ])
        }
        let rows = pending.array ?? []
        var due: [(id: String, attempts: Int64)] = []
        var examined: String?
        for row in rows {
            guard due.count < limit else { break }
            guard let fields = row.array, fields.count == 4, let id = fields[0].string, let idle = fields[2].int,
                let attempts = fields[3].int
            else { continue }
            examined = id
            if !excluding.contains(id), idle >= policy.claimIdleMilliseconds(afterAttempts: attempts) {
                due.append((id, attempts))
            }
        }
        // Go on after the last entry looked at; back to the start once the list's end was seen.
        if let examined, rows.count == page || due.count >= limit {
            cursor = "(" + examined
        } else {
            cursor = "-"
        }
        guard !due.isEmpty else { return [] }
        let claims = try pool.withConnection { connection in
            try connection.pipeline(
                due.map {
                    [
                        "XCLAIM", key, RedisKeys.webhookGroup, consumer,
                        String(policy.claimIdleMilliseconds(afterAttempts: $0.attempts)), $0.id,
                    ]
                })
        }
        var claimed: [WebhookDelivery] = []
        for (candidate, reply) in zip(due, claims) {
            // Empty when another process claimed it first, or the entry is gone.
            guard let entry = reply.array?.first else { continue }
            if let delivery = Self.delivery(entry, endpoint: endpoint, attempts: candidate.attempts + 1) {
                claimed.append(delivery)
            }
        }
        return claimed
    }

    /// A delivery the receiver accepted: acknowledged and deleted, and its place among its
    /// stream's queued deliveries freed for the relay (`PreviewStore+WebhookRelay`) from `now`.
    public func acknowledgeWebhook(_ delivery: WebhookDelivery, now: Int64) throws {
        _ = try pool.withConnection { connection in
            try connection.eval(
                WebhookScripts.acknowledge,
                keys: [
                    keys.webhookDeliveries(endpoint: delivery.endpoint),
                    keys.webhookQueued(endpoint: delivery.endpoint),
                    keys.webhookOutboxes,
                ],
                args: [RedisKeys.webhookGroup, delivery.entryId, delivery.streamId, String(now)])
        }
    }

    /// Moves a delivery to the dead letters (with its attempts, last error and the time) if
    /// `consumer` still owns it; false when another process claimed it meanwhile.
    public func deadLetterWebhook(_ delivery: WebhookDelivery, consumer: String, lastError: String, now: Int64) throws
        -> Bool
    {
        var fields = delivery.fields
        fields["attempts"] = String(delivery.attempts)
        fields["lastError"] = String(lastError.prefix(500))
        fields["deadAt"] = String(now)
        fields["endpoint"] = delivery.endpoint
        let pairs = fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        let moved = try pool.withConnection { connection in
            try connection.eval(
                WebhookScripts.deadLetter,
                keys: [
                    keys.webhookDeliveries(endpoint: delivery.endpoint), keys.webhookDeadLetters,
                    keys.webhookQueued(endpoint: delivery.endpoint), keys.webhookOutboxes,
                ],
                args: [
                    RedisKeys.webhookGroup, delivery.entryId, consumer, String(Self.deadLetterLimit), delivery.streamId,
                    String(now),
                ] + pairs)
        }
        return moved.int == 1
    }

    // MARK: Dead letters

    /// One dead letter: its ID in the dead-letter stream and its fields (the event's, `url`,
    /// `endpoint`, `deadline`, `attempts`, `lastError`, `deadAt`).
    public struct DeadLetter: Sendable, Equatable {
        public var id: String
        public var fields: [String: String]

        public var event: WebhookEvent? { WebhookEvent(fields: fields) }
    }

    /// Up to `limit` dead letters after `after` ("-": from the oldest), oldest first.
    public func webhookDeadLetters(after: String = "-", limit: Int) throws -> [DeadLetter] {
        let reply = try pool.withConnection { connection in
            try connection.command([
                "XRANGE", keys.webhookDeadLetters, after == "-" ? "-" : "(" + after, "+", "COUNT", String(limit),
            ])
        }
        return (reply.array ?? []).compactMap { entry in
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string else { return nil }
            return DeadLetter(id: id, fields: Self.hash(parts[1]))
        }
    }

    /// The dead letter with this ID, nil when there is none.
    public func webhookDeadLetter(id: String) throws -> DeadLetter? {
        let reply = try pool.withConnection { try $0.command(["XRANGE", keys.webhookDeadLetters, id, id]) }
        guard let entry = reply.array?.first?.array, entry.count == 2 else { return nil }
        return DeadLetter(id: id, fields: Self.hash(entry[1]))
    }

    /// Puts a dead letter back into its delivery stream with a new deadline and no attempts,
    /// removing it from the dead letters; false when it is not there (replayed already).
    public func replayDeadLetter(_ letter: DeadLetter, deadline: Int64) throws -> Bool {
        guard let endpoint = letter.fields["endpoint"], !endpoint.isEmpty else {
            throw RedisError(kind: .protocolError, message: "dead letter \(letter.id) names no endpoint")
        }
        var fields = letter.fields
        for name in ["attempts", "lastError", "deadAt", "endpoint"] { fields[name] = nil }
        fields["deadline"] = String(deadline)
        let pairs = fields.sorted { $0.key < $1.key }.flatMap { [$0.key, $0.value] }
        try ensureWebhookGroup(endpoint: endpoint)
        let replayed = try pool.withConnection { connection in
            try connection.eval(
                WebhookScripts.replay,
                keys: [
                    keys.webhookDeadLetters, keys.webhookDeliveries(endpoint: endpoint),
                    keys.webhookQueued(endpoint: endpoint),
                ],
                args: [letter.id, Self.streamIdText(letter.fields)] + pairs)
        }
        return replayed.int == 1
    }

    // MARK: Gauges and housekeeping

    /// What waits: deliveries not yet made to the given endpoints (pending retries and entries
    /// not read yet), streams whose outbox may hold events, and dead letters.
    public struct WebhookBacklog: Sendable, Equatable {
        public var undelivered: Int64 = 0
        public var pendingRetries: Int64 = 0
        public var outboxStreams: Int64 = 0
        public var deadLetters: Int64 = 0
    }

    public func webhookBacklog(endpoints: [String]) throws -> WebhookBacklog {
        let replies = try pool.withConnection { connection in
            try connection.pipeline(
                [["ZCARD", keys.webhookOutboxes], ["XLEN", keys.webhookDeadLetters]]
                    + endpoints.map { ["XLEN", keys.webhookDeliveries(endpoint: $0)] }
                    + endpoints.map { ["XPENDING", keys.webhookDeliveries(endpoint: $0), RedisKeys.webhookGroup] })
        }
        var backlog = WebhookBacklog(outboxStreams: replies[0].int ?? 0, deadLetters: replies[1].int ?? 0)
        // Acknowledged entries are deleted at once, so a delivery stream's length is what waits.
        for reply in replies.dropFirst(2).prefix(endpoints.count) { backlog.undelivered += reply.int ?? 0 }
        for reply in replies.suffix(endpoints.count) { backlog.pendingRetries += reply.array?.first?.int ?? 0 }
        return backlog
    }

    /// Deletes the group's consumers that own no pending entry and have been idle for
    /// `idleMilliseconds` (each process, and each `sweep` run, reads under a name of its own).
    public func pruneWebhookConsumers(endpoint: String, idleMilliseconds: Int64) throws {
        let key = keys.webhookDeliveries(endpoint: endpoint)
        let reply = try pool.withConnection { try $0.command(["XINFO", "CONSUMERS", key, RedisKeys.webhookGroup]) }
        var idle: [String] = []
        for consumer in reply.array ?? [] {
            let fields = Self.fields(consumer)
            guard let name = fields["name"], fields["pending"] == "0", let since = Int64(fields["idle"] ?? ""),
                since >= idleMilliseconds
            else { continue }
            idle.append(name)
        }
        guard !idle.isEmpty else { return }
        _ = try pool.withConnection { connection in
            try connection.pipeline(idle.map { ["XGROUP", "DELCONSUMER", key, RedisKeys.webhookGroup, $0] })
        }
    }

    /// A delivery stream entry `[id, [field, value, ...]]`.
    static func delivery(_ entry: RedisValue, endpoint: String, attempts: Int64) -> WebhookDelivery? {
        guard let parts = entry.array, parts.count == 2, let id = parts[0].string else { return nil }
        let fields = hash(parts[1])
        return WebhookDelivery(
            entryId: id, endpoint: endpoint, event: WebhookEvent(fields: fields), url: fields["url"] ?? "",
            deadline: Int64(fields["deadline"] ?? "") ?? 0, attempts: attempts, fields: fields)
    }
}

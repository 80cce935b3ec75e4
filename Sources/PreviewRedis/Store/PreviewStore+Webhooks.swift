import PreviewCore

/// Webhook events in Redis (`RedisKeys+Webhooks`): the pieces the changes add to their own
/// scripts, and the relay from the per-stream outboxes to the delivery streams. The consumer
/// group side is in `PreviewStore+WebhookDelivery`.
extension PreviewStore {
    // MARK: Writing events with the changes

    /// The nonce that makes the event IDs of one script call (`WebhookEvent.isValidID`), or ""
    /// when webhooks are off, which makes the scripts write no event.
    func webhookNonce() -> String {
        guard webhookEvents else { return "" }
        var generator = SystemRandomNumberGenerator()
        return WebhookEvent.makeNonce(using: &generator)
    }

    /// The write-ahead index entries for the outboxes of `streamIds`, to send before the script
    /// that may write their events (none when webhooks are off): due for the relay now (LT only
    /// moves a stream earlier), announced now (GT only later).
    func webhookWriteAhead(_ streamIds: [Int64], now: Int64) -> [[String]] {
        guard webhookEvents, !streamIds.isEmpty else { return [] }
        var due = ["ZADD", keys.webhookOutboxes, "LT"]
        var touched = ["ZADD", keys.webhookTouched, "GT"]
        for id in streamIds {
            due += [String(now), String(id)]
            touched += [String(now), String(id)]
        }
        return [due, touched]
    }

    /// Sends `webhookWriteAhead` on its own, before a pipeline of scripts (nothing when off).
    func announceWebhookOutboxes(_ streamIds: [Int64], now: Int64) throws {
        let commands = webhookWriteAhead(streamIds, now: now)
        guard !commands.isEmpty else { return }
        try Self.check(try pool.withConnection { try $0.pipeline(commands) })
    }

    // MARK: Relay

    /// One delivery stream to fill: its endpoint ID (`WebhookEndpoint.id`) and URL.
    public struct WebhookTarget: Sendable, Equatable {
        public var endpoint: String
        public var url: String

        public init(endpoint: String, url: String) {
            self.endpoint = endpoint
            self.url = url
        }
    }

    /// What one relay pass did.
    public struct RelayReport: Sendable, Equatable {
        /// Streams whose outbox was looked at.
        public var streams = 0
        /// Events copied to the delivery streams (once per event, whatever the number of targets).
        public var events = 0
        /// Outbox entries that were not readable events (dropped).
        public var unreadable = 0
        /// Some outbox still holds entries (more than one pass takes), or more streams are due.
        public var more = false
    }

    /// Moves the events of up to `limit` due outboxes into the delivery stream of every target,
    /// each with `url` and `deadline` (`deadline(createdAt)`), then removes them from the outboxes.
    /// A crash between the two steps delivers those events again with the same IDs. Outboxes
    /// found empty leave the index once nothing was announced for `settleSeconds`.
    public func relayWebhookOutboxes(
        targets: [WebhookTarget], now: Int64, limit: Int, perStream: Int = 100, settleSeconds: Int64,
        deadline: (Int64) -> Int64
    ) throws -> RelayReport {
        var report = RelayReport()
        // Without a target the events would be dropped: leave them for a process that has one.
        guard !targets.isEmpty else { return report }
        let claimed = try pool.withConnection { connection in
            try connection.eval(
                WebhookScripts.claimOutboxes, keys: [keys.webhookOutboxes],
                args: [String(now), String(limit), String(now + settleSeconds)])
        }
        let streamIds = (claimed.array ?? []).compactMap { $0.string.flatMap(StreamID.parse) }
        guard !streamIds.isEmpty else { return report }
        report.streams = streamIds.count
        report.more = streamIds.count >= limit
        let ranges = try pool.withConnection { connection in
            try connection.pipeline(
                streamIds.map { ["XRANGE", keys.webhookOutbox($0), "-", "+", "COUNT", String(perStream)] })
        }
        try Self.check(ranges)
        var deliveries: [[String]] = []
        var relayed: [[String]] = []
        for (id, range) in zip(streamIds, ranges) {
            var entryIds: [String] = []
            for entry in range.array ?? [] {
                guard let parts = entry.array, parts.count == 2, let entryId = parts[0].string else { continue }
                entryIds.append(entryId)
                var fields = Self.hash(parts[1])
                fields[WebhookEvent.Field.streamId] = String(id)
                guard let event = WebhookEvent(fields: fields) else {
                    report.unreadable += 1
                    continue
                }
                report.events += 1
                for target in targets {
                    deliveries.append(
                        ["XADD", keys.webhookDeliveries(endpoint: target.endpoint), "*"]
                            + event.fields.flatMap { [$0.0, $0.1] }
                            + ["url", target.url, "deadline", String(deadline(event.createdAt))])
                }
            }
            relayed.append(entryIds)
        }
        if !deliveries.isEmpty {
            try Self.check(try pool.withConnection { try $0.pipeline(deliveries) })
        }
        let left = try pool.withConnection { connection in
            try connection.evalPipeline(
                WebhookScripts.finishOutbox,
                calls: zip(streamIds, relayed).map { ([keys.webhookOutbox($0)], $1) })
        }
        try Self.check(left)
        var settle = [String(now), String(settleSeconds)]
        for (id, remaining) in zip(streamIds, left) {
            let count = remaining.int ?? 0
            if count > 0 { report.more = true }
            settle += [String(id), String(count)]
        }
        _ = try pool.withConnection { connection in
            try connection.eval(
                WebhookScripts.settleOutboxes, keys: [keys.webhookOutboxes, keys.webhookTouched], args: settle)
        }
        return report
    }
}

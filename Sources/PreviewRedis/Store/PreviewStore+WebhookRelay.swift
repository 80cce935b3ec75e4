import PreviewCore

/// The relay from the streams' outboxes into the delivery streams of the receiver URLs
/// (`RedisKeys+Webhooks`, `WebhookRelayScripts`).
///
/// Each URL's delivery stream holds at most `window` deliveries of one stream (counted in
/// `webhookQueued`, released when one is answered or dead-lettered); the stream's later events
/// wait in its outbox, which the change scripts keep to `webhookOutboxLimit`. So a stream whose
/// deliveries fail or stall, however many events it makes, has at most `window` deliveries (and
/// their retries) ahead of another stream's next event in any URL's queue, and at most
/// `webhookOutboxLimit` + `window` per URL in Redis. Each URL is relayed from its own cursor in
/// the outbox, so a dead receiver holds back no other URL's deliveries.
extension PreviewStore {
    /// The default `window` of `relayWebhookOutboxes`: deliveries of one stream queued at once
    /// for one URL.
    public static let webhookDeliveryWindow = 8

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
        /// Events copied to a delivery stream for the first time (once per event, whatever the
        /// number of targets).
        public var events = 0
        /// Deliveries added to the targets' delivery streams.
        public var deliveries = 0
        /// Outbox entries that were not readable events (skipped).
        public var unreadable = 0
        /// Events the streams' outboxes dropped (their oldest, when full) that no relay had
        /// reported yet, by stream.
        public var dropped: [Int64: Int] = [:]
        /// Some outbox holds entries this pass could not take but the next can, or more streams
        /// are due.
        public var more = false
    }

    /// Copies the events of up to `limit` due outboxes into the delivery stream of every target,
    /// each with `url` and `deadline` (`deadline(createdAt)`), at most `perStream` per stream and
    /// target and no more than the stream's `window` there allows, then trims what every target
    /// has. A crash between the two steps delivers those events again with the same IDs.
    /// Outboxes found empty leave the index once nothing was announced for `settleSeconds`; one
    /// whose targets are all full waits for an answer to free a place (or `settleSeconds`).
    public func relayWebhookOutboxes(
        targets: [WebhookTarget], now: Int64, limit: Int, perStream: Int = 100,
        window: Int = PreviewStore.webhookDeliveryWindow, settleSeconds: Int64, deadline: (Int64) -> Int64
    ) throws -> RelayReport {
        var report = RelayReport()
        // Without a target the events would be dropped: leave them for a process that has one.
        guard !targets.isEmpty else { return report }
        let claimed = try pool.withConnection { connection in
            try connection.eval(
                WebhookRelayScripts.claimOutboxes, keys: [keys.webhookOutboxes],
                args: [String(now), String(limit), String(now + settleSeconds)])
        }
        let streamIds = (claimed.array ?? []).compactMap { $0.string.flatMap(StreamID.parse) }
        guard !streamIds.isEmpty else { return report }
        report.streams = streamIds.count
        report.more = streamIds.count >= limit

        var outboxes = try readOutboxStates(streamIds, targets: targets)
        let reads = outboxes.indices.flatMap { s in
            targets.indices.compactMap { t -> (Int, Int, Int)? in
                let room = min(perStream, window - outboxes[s].queued[t])
                guard room > 0, let newest = outboxes[s].newest, outboxes[s].cursors[t].map({ $0 < newest }) ?? true
                else { return nil }
                return (s, t, room)
            }
        }
        let ranges = try pool.withConnection { connection in
            try connection.pipeline(
                reads.map { s, t, room in
                    let from = outboxes[s].cursors[t].map { "(\($0)" } ?? "-"
                    return ["XRANGE", keys.webhookOutbox(streamIds[s]), from, "+", "COUNT", String(room)]
                })
        }
        try Self.check(ranges)
        var unreadable: Set<String> = []
        var firstRelayed: [Set<String>] = Array(repeating: [], count: streamIds.count)
        var calls: [(read: Int, entries: [(id: FeedEventID, event: WebhookEvent?)])] = []
        for (index, (s, _, _)) in reads.enumerated() {
            let entries = Self.outboxEntries(ranges[index], streamId: streamIds[s])
            for entry in entries where entry.event == nil { unreadable.insert(entry.id.description) }
            calls.append((index, entries))
        }
        report.unreadable = unreadable.count
        let added = try pool.withConnection { connection in
            try connection.evalPipeline(
                WebhookRelayScripts.relayDeliveries,
                calls: calls.map { call in
                    let (s, t, _) = reads[call.read]
                    var args = [String(streamIds[s]), String(window)]
                    for case let event? in call.entries.map(\.event) {
                        let fields =
                            event.fields.flatMap { [$0.0, $0.1] }
                            + ["url", targets[t].url, "deadline", String(deadline(event.createdAt))]
                        args += [String(fields.count)] + fields
                    }
                    return (
                        [
                            keys.webhookDeliveries(endpoint: targets[t].endpoint),
                            keys.webhookQueued(endpoint: targets[t].endpoint),
                        ], args
                    )
                })
        }
        try Self.check(added)
        for (call, reply) in zip(calls, added) {
            let (s, t, _) = reads[call.read]
            let taken = reply.int.map(Int.init) ?? 0
            outboxes[s].queued[t] += taken
            report.deliveries += taken
            var readable = 0
            var last: FeedEventID?
            for entry in call.entries {
                if entry.event != nil {
                    guard readable < taken else { break }
                    readable += 1
                    if outboxes[s].relayedBefore.map({ $0 < entry.id }) ?? true {
                        firstRelayed[s].insert(entry.id.description)
                    }
                }
                last = entry.id
            }
            if let last { outboxes[s].cursors[t] = last }
        }
        report.events = firstRelayed.reduce(0) { $0 + $1.count }
        let left = try finishOutboxes(streamIds, outboxes, targets: targets)
        var settle = [String(now), String(settleSeconds)]
        for (s, id) in streamIds.enumerated() {
            let state = outboxes[s]
            if state.dropTotal > state.droppedReported { report.dropped[id] = state.dropTotal - state.droppedReported }
            let remaining = left[s]
            // Targets with events still to take: none of them can take one now when each has
            // its window full, and then an answer makes the stream due again.
            let behind = targets.indices.filter { t in
                state.newest.map { newest in state.cursors[t].map { $0 < newest } ?? true } ?? false
            }
            let waiting = remaining > 0 && !behind.isEmpty && behind.allSatisfy { state.queued[$0] >= window }
            if remaining > 0 && !waiting { report.more = true }
            settle += [String(id), String(remaining), String(waiting ? now + settleSeconds : now)]
        }
        _ = try pool.withConnection { connection in
            try connection.eval(
                WebhookRelayScripts.settleOutboxes, keys: [keys.webhookOutboxes, keys.webhookTouched], args: settle)
        }
        return report
    }

    /// What the relay knows of one claimed outbox, by target index.
    private struct OutboxState {
        /// The last entry relayed to each target.
        var cursors: [FeedEventID?]
        /// The target's deliveries of this stream not yet answered (with those this pass added).
        var queued: [Int]
        /// The outbox's newest entry.
        var newest: FeedEventID?
        /// The newest entry any target had before this pass.
        var relayedBefore: FeedEventID?
        /// Drops the outbox counts (its newest entry's running total) and those already reported.
        var dropTotal = 0
        var droppedReported = 0
    }

    /// Each outbox's cursors, drop counts and newest entry, and what each target holds of it.
    private func readOutboxStates(_ streamIds: [Int64], targets: [WebhookTarget]) throws -> [OutboxState] {
        let replies = try pool.withConnection { connection in
            try connection.pipeline(
                streamIds.flatMap {
                    [
                        ["HGETALL", keys.webhookRelayed($0)],
                        ["XREVRANGE", keys.webhookOutbox($0), "+", "-", "COUNT", "1"],
                    ]
                } + targets.map { ["HMGET", keys.webhookQueued(endpoint: $0.endpoint)] + streamIds.map(String.init) })
        }
        try Self.check(replies)
        return streamIds.indices.map { s in
            let relayed = Self.hash(replies[2 * s])
            let newest = replies[2 * s + 1].array?.first?.array
            let newestFields = newest.map { Self.hash($0.count == 2 ? $0[1] : .null) } ?? [:]
            let cursors = targets.map { relayed[$0.endpoint].flatMap { FeedEventID($0) } }
            let queued = targets.indices.map { t in
                replies[2 * streamIds.count + t].array.flatMap { $0.count > s ? $0[s].string : nil }.flatMap { Int($0) }
                    ?? 0
            }
            return OutboxState(
                cursors: cursors, queued: queued, newest: newest?.first?.string.flatMap { FeedEventID($0) },
                relayedBefore: cursors.compactMap { $0 }.max(),
                dropTotal: newestFields[WebhookScripts.droppedField].flatMap { Int($0) } ?? 0,
                droppedReported: relayed[WebhookScripts.droppedField].flatMap { Int($0) } ?? 0)
        }
    }

    /// Records the cursors and reported drops and trims each outbox; returns the entries left.
    private func finishOutboxes(_ streamIds: [Int64], _ outboxes: [OutboxState], targets: [WebhookTarget]) throws
        -> [Int]
    {
        let left = try pool.withConnection { connection in
            try connection.evalPipeline(
                WebhookRelayScripts.finishOutbox,
                calls: zip(streamIds, outboxes).map { id, state in
                    var args = [String(max(state.dropTotal, state.droppedReported))]
                    for (target, cursor) in zip(targets, state.cursors) {
                        args += [target.endpoint, cursor?.description ?? ""]
                    }
                    return ([keys.webhookOutbox(id), keys.webhookRelayed(id)], args)
                })
        }
        try Self.check(left)
        return left.map { $0.int.map(Int.init) ?? 0 }
    }

    /// An outbox `XRANGE` reply as entry IDs and events (nil: not a readable event).
    static func outboxEntries(_ reply: RedisValue, streamId: Int64) -> [(id: FeedEventID, event: WebhookEvent?)] {
        (reply.array ?? []).compactMap { entry in
            guard let parts = entry.array, parts.count == 2, let id = parts[0].string.flatMap({ FeedEventID($0) })
            else { return nil }
            var fields = hash(parts[1])
            fields[WebhookEvent.Field.streamId] = String(streamId)
            return (id, WebhookEvent(fields: fields))
        }
    }
}

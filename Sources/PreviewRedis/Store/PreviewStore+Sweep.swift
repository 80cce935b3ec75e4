import PreviewCore

/// The sweeper's Redis operations (`SweepScripts`): the queue of streams with garbage, the
/// lease, and per-stream garbage handled in pipelines of one script call per stream.
extension PreviewStore {
    /// Adds streams to the sweep queue, due at the given times (or earlier if already queued
    /// earlier). Called before the script that writes the garbage (see `RedisKeys`).
    public func enqueueSweep(_ entries: [(streamId: Int64, due: Int64)], now: Int64) throws {
        guard !entries.isEmpty else { return }
        try Self.check(try pool.withConnection { try $0.pipeline(enqueueCommands(entries, now: now)) })
    }

    /// The commands of `enqueueSweep`, to send in one pipeline with others: the queue only
    /// moves a stream earlier (LT), the touch time only later (GT).
    func enqueueCommands(_ entries: [(streamId: Int64, due: Int64)], now: Int64) -> [[String]] {
        var queue = ["ZADD", keys.sweepQueue, "LT"]
        var touched = ["ZADD", keys.sweepTouched, "GT"]
        for entry in entries {
            queue += [String(entry.due), String(entry.streamId)]
            touched += [String(now), String(entry.streamId)]
        }
        return [queue, touched]
    }

    // MARK: Lease

    /// The outcome of trying to take the sweep lease.
    public enum LeaseAttempt: Sendable, Equatable {
        /// Taken, with its fencing token.
        case acquired(token: Int64)
        /// Another sweeper holds it; it ends in this many milliseconds (nil: it has no expiry).
        case held(endsInMilliseconds: Int64?)
    }

    /// Takes the sweep lease for `milliseconds`.
    public func acquireSweepLease(milliseconds: Int64) throws -> LeaseAttempt {
        let reply = try pool.withConnection { connection in
            try connection.eval(
                SweepScripts.acquireLease, keys: [keys.sweepLease, keys.sweepFence], args: [String(milliseconds)])
        }
        guard let parts = reply.array, parts.count == 2, let token = parts[0].int, let ends = parts[1].int else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the lease script")
        }
        return token > 0 ? .acquired(token: token) : .held(endsInMilliseconds: ends >= 0 ? ends : nil)
    }

    /// Extends the lease; false when `token` lost it.
    public func renewSweepLease(token: Int64, milliseconds: Int64) throws -> Bool {
        try pool.withConnection { connection in
            try connection.eval(
                SweepScripts.renewLease, keys: [keys.sweepLease], args: [String(token), String(milliseconds)])
        }.int == 1
    }

    public func releaseSweepLease(token: Int64) throws {
        _ = try pool.withConnection { connection in
            try connection.eval(SweepScripts.releaseLease, keys: [keys.sweepLease], args: [String(token)])
        }
    }

    // MARK: Queue

    /// Streams claimed for one batch.
    public struct ClaimedStreams: Sendable, Equatable {
        /// Every claimed stream, those taken over first.
        public var streamIds: [Int64]
        /// Those that were still claimed under an older fencing token (a sweeper that died or
        /// lost the lease): their in-flight keys are taken over too (`collectGarbage`).
        public var takenOver: Set<Int64>
    }

    /// Claims up to `limit` streams until `claimUntil`: those an older fencing token still
    /// claims, then those due by `now`; nil when `token` lost the lease.
    public func claimDueStreams(token: Int64, now: Int64, limit: Int, claimUntil: Int64) throws -> ClaimedStreams? {
        let reply = try pool.withConnection { connection in
            try connection.eval(
                SweepScripts.claim, keys: [keys.sweepLease, keys.sweepQueue, keys.sweepClaims],
                args: [String(token), String(now), String(limit), String(claimUntil)])
        }
        guard let parts = reply.array, let status = parts.first?.string else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the claim script")
        }
        guard status == "ok" else { return nil }
        guard parts.count >= 2, let taken = parts[1].int, taken >= 0, taken <= parts.count - 2 else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the claim script")
        }
        let ids = parts.dropFirst(2).map { $0.string.flatMap(StreamID.parse) }
        return ClaimedStreams(
            streamIds: ids.compactMap { $0 }, takenOver: Set(ids.prefix(Int(taken)).compactMap { $0 }))
    }

    /// Gives each claimed stream its next due time (nil: no garbage left); false when `token`
    /// lost the lease, in which case nothing was changed.
    public func settleSweep(
        token: Int64, now: Int64, settleSeconds: Int64, claimUntil: Int64, next: [(streamId: Int64, due: Int64?)]
    ) throws -> Bool {
        var args = [String(token), String(now), String(settleSeconds), String(claimUntil)]
        for entry in next { args += [String(entry.streamId), entry.due.map(String.init) ?? ""] }
        return try pool.withConnection { connection in
            try connection.eval(
                SweepScripts.settle, keys: [keys.sweepLease, keys.sweepQueue, keys.sweepTouched, keys.sweepClaims],
                args: args)
        }.string == "ok"
    }

    /// Streams due by `now`, read only (for `--dry-run`).
    public func dueStreams(now: Int64, offset: Int, limit: Int) throws -> [Int64] {
        let reply = try pool.withConnection { connection in
            try connection.command([
                "ZRANGEBYSCORE", keys.sweepQueue, "-inf", String(now), "LIMIT", String(offset), String(limit),
            ])
        }
        return (reply.array ?? []).compactMap { $0.string.flatMap(StreamID.parse) }
    }

    /// Streams in the sweep queue, and how many of them are due by `now`.
    public func sweepBacklog(now: Int64) throws -> (queued: Int64, due: Int64) {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([["ZCARD", keys.sweepQueue], ["ZCOUNT", keys.sweepQueue, "-inf", String(now)]])
        }
        try Self.check(replies)
        return (replies[0].int ?? 0, replies[1].int ?? 0)
    }

    // MARK: Garbage of streams

    /// What `collectGarbage` found in one stream.
    public struct Collected: Sendable, Equatable {
        /// The version of an expired preview retired on the way (the feed index had lost it), or nil.
        public var retiredVersion: Int64?
        /// Due keys the live preview uses (dropped from the garbage set, not deleted).
        public var kept: Int
        /// Condemned keys claimed for deletion.
        public var keys: [String]
    }

    /// Retires each stream's preview if it has expired, condemns its due garbage and claims
    /// up to `limit` keys per stream for deletion (see `SweepScripts.collect`): one pipeline,
    /// one script call per stream. In streams `takenOver` from a dead sweeper, the keys it had
    /// claimed are claimed again at once. The upload records of the claimed keys are then
    /// deleted, so no commit publishes them, and retired streams leave the feed index.
    public func collectGarbage(
        streamIds: [Int64], takenOver: Set<Int64> = [], now: Int64, limit: Int, claimUntil: Int64,
        retireUntil: Int64, keepAfterEnd: Int64
    ) throws -> [Collected] {
        let args = [String(now), String(limit), String(claimUntil), String(retireUntil), String(max(1, keepAfterEnd))]
        try announceWebhookOutboxes(streamIds, now: now)
        let replies = try pool.withConnection { connection in
            try connection.evalPipeline(
                SweepScripts.collect,
                calls: streamIds.map { id in
                    (
                        [
                            keys.preview(id), keys.garbage(id), keys.deleting(id), keys.version(id), keys.likers(id),
                            keys.webhookOutbox(id),
                        ] + keys.figureKeys(id),
                        args + [
                            String(takenOver.contains(id) ? claimUntil : now), webhookArgument(),
                            String(figures.retentionSeconds),
                        ]
                    )
                })
        }
        try Self.check(replies)
        let collected = try replies.map { reply in
            guard let parts = reply.array, parts.count >= 2, let retired = parts[0].int, let kept = parts[1].int else {
                throw RedisError(kind: .protocolError, message: "unexpected reply from the collect script")
            }
            return Collected(
                retiredVersion: retired > 0 ? retired : nil, kept: Int(kept),
                keys: parts.dropFirst(2).compactMap(\.string))
        }
        try forgetUploads(of: collected.flatMap(\.keys))
        for (id, found) in zip(streamIds, collected) where found.retiredVersion != nil {
            try unindexIfGone(streamId: id)
        }
        return collected
    }

    /// Deletes the upload records that own these object keys (a condemned upload can no
    /// longer be committed; its record would only wait for its TTL).
    private func forgetUploads(of objectKeys: [String]) throws {
        var records = Set<String>()
        for key in objectKeys {
            if let owner = ObjectKeys.owner(of: key) { records.insert(keys.upload(owner.streamId, owner.uploadId)) }
        }
        guard !records.isEmpty else { return }
        let replies = try pool.withConnection { connection in
            try connection.pipeline(records.map { ["DEL", $0] })
        }
        try Self.check(replies)
    }

    /// What `collectGarbage` would claim, without changing anything.
    public func peekGarbage(streamIds: [Int64], now: Int64, limit: Int) throws -> [String] {
        let replies = try pool.withConnection { connection in
            try connection.evalPipeline(
                SweepScripts.peek,
                calls: streamIds.map { id in
                    ([keys.preview(id), keys.garbage(id), keys.deleting(id)], [String(now), String(limit)])
                })
        }
        try Self.check(replies)
        return replies.flatMap { ($0.array ?? []).compactMap(\.string) }
    }

    /// The outcome of one stream's deletes.
    public struct DeleteOutcome: Sendable {
        public var streamId: Int64
        public var deleted: [String]
        public var failed: [String]

        public init(streamId: Int64, deleted: [String], failed: [String]) {
            self.streamId = streamId
            self.deleted = deleted
            self.failed = failed
        }
    }

    /// Forgets deleted keys and schedules failed ones with exponential backoff (from
    /// `backoffSeconds`, at most `maxBackoffSeconds`); returns each stream's next due time.
    public func acknowledgeDeletes(
        _ outcomes: [DeleteOutcome], now: Int64, backoffSeconds: Int64, maxBackoffSeconds: Int64
    ) throws -> [Int64?] {
        try announceWebhookOutboxes(outcomes.filter { !$0.deleted.isEmpty }.map(\.streamId), now: now)
        let replies = try pool.withConnection { connection in
            try connection.evalPipeline(
                SweepScripts.acknowledge,
                calls: outcomes.map { outcome in
                    let id = outcome.streamId
                    return (
                        [
                            keys.garbage(id), keys.deleting(id), keys.deleteAttempts(id), keys.preview(id),
                            keys.replacedObjects(id), keys.webhookOutbox(id),
                        ],
                        [
                            String(now), String(backoffSeconds), String(maxBackoffSeconds),
                            String(outcome.deleted.count), webhookArgument(),
                        ] + outcome.deleted + outcome.failed
                    )
                })
        }
        try Self.check(replies)
        return try replies.map { reply in
            guard let next = reply.int else {
                throw RedisError(kind: .protocolError, message: "unexpected reply from the acknowledge script")
            }
            return next < 0 ? nil : next
        }
    }

    // MARK: Expired previews

    /// Removes the previews of these streams that expired by `now` (a fresher commit
    /// survives), in pipelines; returns how many were removed.
    public func retireExpired(streamIds: [Int64], now: Int64, retireUntil: Int64, keepAfterEnd: Int64) throws -> Int {
        guard !streamIds.isEmpty else { return 0 }
        try enqueueSweep(streamIds.map { ($0, retireUntil) }, now: now)
        try announceWebhookOutboxes(streamIds, now: now)
        let replies = try pool.withConnection { connection in
            try connection.evalPipeline(
                PreviewScripts.retire,
                calls: streamIds.map { id in
                    retireCall(
                        streamId: id, retireUntil: retireUntil, expiredAt: now, keepAfterEnd: keepAfterEnd, now: now)
                })
        }
        try Self.check(replies)
        for id in streamIds { try unindexIfGone(streamId: id) }
        let removed = zip(streamIds, replies).compactMap { id, reply in
            reply.int.flatMap { $0 > 0 ? FeedEvent.removed(streamId: id, version: $0) : nil }
        }
        recordEvents(removed)
        return removed.count
    }

    // MARK: Upgrade

    /// Moves up to `limit` entries of the object index written by earlier versions into their
    /// streams' garbage sets (due when they were; an `inf` score stays never due, `-inf` is due
    /// now), queueing the streams first. Keys that are not ours, or whose score is no number,
    /// are dropped without touching the store. Returns how many entries were moved or dropped.
    public func migrateLegacyGarbage(now: Int64, limit: Int) throws -> Int {
        let reply = try pool.withConnection { connection in
            try connection.command(["ZRANGE", keys.legacyGarbage, "0", String(limit - 1), "WITHSCORES"])
        }
        let items = reply.array ?? []
        var entries: [(key: String, due: Int64?)] = []
        var index = 0
        while index + 1 < items.count {
            if let key = items[index].string {
                entries.append((key, items[index + 1].string.flatMap { RedisScore.integer($0) }))
            }
            index += 2
        }
        guard !entries.isEmpty else { return 0 }
        var owned: [(streamId: Int64, key: String, due: Int64)] = []
        for entry in entries {
            if let due = entry.due, let owner = ObjectKeys.owner(of: entry.key) {
                owned.append((owner.streamId, entry.key, due))
            }
        }
        try enqueueSweep(owned.map { ($0.streamId, $0.due) }, now: now)
        let replies = try pool.withConnection { connection in
            try connection.pipeline(
                owned.map { ["ZADD", keys.garbage($0.streamId), "NX", String($0.due), $0.key] }
                    + [["ZREM", keys.legacyGarbage] + entries.map(\.key)])
        }
        try Self.check(replies)
        return entries.count
    }
}

public import PreviewCore
import Synchronization

/// Every Redis operation of the product, on one server's pool or a cluster. Multi-step changes of
/// one stream run as the Lua scripts in `PreviewScripts`; the global indexes are maintained
/// as `RedisKeys` describes.
public final class PreviewStore: Sendable {
    /// One server's pool or a cluster (`RedisClient`).
    public let pool: any RedisClient
    public let keys: RedisKeys
    /// Replicas that must confirm each write the API acknowledges before it does.
    public let replicaWait: ReplicaWait
    let failpoints: Failpoints
    /// About how many entries the event log keeps (`XADD ... MAXLEN ~`).
    public let eventLogLength: Int
    /// Whether the changes write webhook events to their streams' outboxes (`--webhook-url`).
    /// Every process that makes changes (each replica, the sweep job) must agree, or the changes
    /// one of them makes go unannounced.
    public let webhookEvents: Bool
    /// The most events a stream's outbox holds (`--webhook-backlog-per-stream`): a change that
    /// writes one more drops the oldest first, in the same script.
    public let webhookOutboxLimit: Int
    /// The default of `webhookOutboxLimit`: more than a day of events of a stream committing
    /// every three minutes.
    public static let defaultWebhookOutboxLimit = 1000
    /// Whether versions count figures, and how long they are kept (`FigureScripts`).
    public let figures: FigureSettings
    /// Events that could not be written to the log after their change was made (counted, not
    /// thrown: the change stands, and a viewer who missed it sees it at the next reload).
    let eventFailures = Atomic<Int>(0)
    /// Names this process in the feed changes it announces (random per store).
    public let origin = Hex.encode((0..<8).map { _ in UInt8.random(in: 0...255) })

    /// Failures tests inject between the steps of a multi-step change, where a lost
    /// connection or a killed process could stop it.
    public struct Failpoints: Sendable {
        /// Runs after the publish script, before the feed index is corrected.
        public var afterPublishScript: (@Sendable () throws -> Void)?
        /// Runs after a viewer's history is read, before it is returned (a change may overtake it).
        public var afterViewerHistoryRead: (@Sendable () throws -> Void)?

        public init(
            afterPublishScript: (@Sendable () throws -> Void)? = nil,
            afterViewerHistoryRead: (@Sendable () throws -> Void)? = nil
        ) {
            self.afterPublishScript = afterPublishScript
            self.afterViewerHistoryRead = afterViewerHistoryRead
        }
    }

    public init(
        client: any RedisClient, keys: RedisKeys, replicaWait: ReplicaWait = ReplicaWait(),
        failpoints: Failpoints = Failpoints(), eventLogLength: Int = 10_000, webhookEvents: Bool = false,
        webhookOutboxLimit: Int = PreviewStore.defaultWebhookOutboxLimit, figures: FigureSettings = FigureSettings()
    ) {
        self.figures = figures
        self.pool = client
        self.keys = keys
        self.replicaWait = replicaWait
        self.failpoints = failpoints
        self.eventLogLength = max(1, eventLogLength)
        self.webhookEvents = webhookEvents
        self.webhookOutboxLimit = max(1, webhookOutboxLimit)
    }

    /// A store on one server's pool (`RedisServerClient`).
    public convenience init(
        pool: RedisPool, keys: RedisKeys, replicaWait: ReplicaWait = ReplicaWait(),
        failpoints: Failpoints = Failpoints(), eventLogLength: Int = 10_000, webhookEvents: Bool = false,
        webhookOutboxLimit: Int = PreviewStore.defaultWebhookOutboxLimit, figures: FigureSettings = FigureSettings()
    ) {
        self.init(
            client: RedisServerClient(pool: pool), keys: keys, replicaWait: replicaWait, failpoints: failpoints,
            eventLogLength: eventLogLength, webhookEvents: webhookEvents, webhookOutboxLimit: webhookOutboxLimit,
            figures: figures)
    }

    /// PING, for readiness.
    public func ping() throws {
        _ = try pool.withConnection { try $0.command(["PING"]) }
    }

    // MARK: Uploads

    /// What `recordUpload` did.
    public enum RecordOutcome: Sendable, Equatable {
        case recorded
        /// The stream already has `maxPending` uploads pending; the oldest stops counting after
        /// its commit deadline, `retryAfter` seconds from now.
        case tooManyPending(retryAfter: Int64)
        /// The upload's objects would take the stream's retained bytes over the limit; the
        /// oldest counted object stops counting `retryAfter` seconds from now.
        case quotaExceeded(retryAfter: Int64)
    }

    /// Records an issued upload unless its stream already has `maxPending` (>= 1) uploads
    /// neither committed nor past their commit deadline: counted and recorded atomically by
    /// one script on the stream's slot, which also enters the objects in the stream's garbage
    /// set, so an abandoned upload is collected after its commit deadline. The stream enters
    /// the sweep queue first (see `RedisKeys`). The record's Redis TTL (an hour past the
    /// deadline) only cleans up; the deadline decides. The same script counts the objects, at
    /// their signed sizes, in the stream's retained bytes and refuses the upload when that goes
    /// over `maxRetainedBytes` (0: no limit; see `RetainedScripts`).
    public func recordUpload(
        _ upload: PendingUpload, now: Int64, maxPending: Int, maxRetainedBytes: Int64 = 0
    ) throws -> RecordOutcome {
        let id = upload.streamId
        var args = [
            upload.uploadId, String(now), String(upload.commitDeadline),
            String(max(1, upload.commitDeadline - now) + 3600), String(max(1, maxPending)), upload.movieKey,
            upload.thumbnailKey, String(max(0, maxRetainedBytes)), String(upload.movie.maxBytes),
            String(upload.thumbnail.maxBytes),
        ]
        for (field, value) in upload.fields { args += [field, value] }
        let reply = try pool.withConnection { connection in
            let reply = try connection.eval(
                PreviewScripts.recordUpload,
                keys: [keys.upload(id, upload.uploadId), keys.pendingUploads(id), keys.garbage(id)]
                    + keys.retained(id).all, args: args,
                after: enqueueCommands([(id, upload.commitDeadline + 1)], now: now))
            try replicaWait.confirm(on: connection)
            return reply
        }
        guard let parts = reply.array, parts.count == 2, let status = parts[0].string, let time = parts[1].int
        else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the recordUpload script")
        }
        switch status {
        case "full": return .tooManyPending(retryAfter: max(1, time + 1 - now))
        case "quota": return .quotaExceeded(retryAfter: max(1, time - now))
        default: return .recorded
        }
    }

    /// The live preview of a stream with its likes, nil when it has none.
    public func liveStream(streamId: Int64) throws -> LiveStream? {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([["HGETALL", keys.preview(streamId)], ["SCARD", keys.likers(streamId)]])
        }
        try Self.check(replies)
        return LiveStream(streamId: streamId, fields: Self.hash(replies[0]), likes: replies[1].int ?? 0)
    }

    /// The pending upload and the live preview (with its likes) of a stream, in one round trip.
    public func uploadAndPreview(streamId: Int64, uploadId: String) throws -> (PendingUpload?, LiveStream?) {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([
                ["HGETALL", keys.upload(streamId, uploadId)],
                ["HGETALL", keys.preview(streamId)],
                ["SCARD", keys.likers(streamId)],
            ])
        }
        try Self.check(replies)
        let upload = PendingUpload(streamId: streamId, uploadId: uploadId, fields: Self.hash(replies[0]))
        return (upload, LiveStream(streamId: streamId, fields: Self.hash(replies[1]), likes: replies[2].int ?? 0))
    }

    public enum PublishOutcome: Sendable, Equatable {
        case published(LiveStream)
        /// The upload was already the live preview: the same item again.
        case alreadyPublished(LiveStream)
        /// The upload expired (or never existed) before it could be published.
        case uploadGone
    }

    /// Atomically makes `preview` (its version assigned here) the stream's live preview.
    /// Replaced objects stay for `retireUntil`. Whatever step fails, nothing leaks: the stream
    /// enters the sweep queue first, then the feed index (never lowering its time: readers and
    /// the sweeper check the hash), then the script runs; the index is corrected afterwards.
    /// Once the script has run, the preview is in the index, so it is shown, and expires and
    /// is collected, even if this process dies before answering. The new objects count in the
    /// stream's retained bytes at their real sizes until the preview's expiry + the grace
    /// (`retireUntil - now`), the replaced ones until `retireUntil`.
    public func publish(_ preview: PreviewRecord, retireUntil: Int64, now: Int64) throws -> PublishOutcome {
        let id = preview.streamId
        var args = [
            preview.uploadId, String(retireUntil), String(now), preview.movieKey, preview.thumbnailKey,
            keys.feedChanges,
            FeedChange.prefix(origin: origin, kind: .published, streamId: id),
            String(Self.retainedUntil(preview, retireUntil: retireUntil, now: now)), String(preview.movieBytes),
            String(preview.thumbnailBytes), webhookArgument(), figures.keptArgument, String(figures.retentionSeconds),
        ]
        for (field, value) in preview.fieldsWithoutVersion { args += [field, value] }
        let before =
            enqueueCommands([(id, retireUntil)], now: now) + [
                ["ZADD", keys.live, "GT", String(preview.expiresAt), String(id)]
            ] + webhookWriteAhead([id], now: now)
        let reply = try pool.withConnection { connection in
            let reply = try connection.eval(
                PreviewScripts.publish,
                keys: [
                    keys.preview(id), keys.version(id), keys.upload(id, preview.uploadId), keys.garbage(id),
                    keys.likers(id), keys.pendingUploads(id), keys.deleting(id),
                ] + keys.retained(id).all + [
                    keys.webhookOutbox(id), keys.replacedObjects(id), keys.figures(id), keys.watchURL(id),
                    keys.figures(id, distinct: "impressions"), keys.figures(id, distinct: "opens"),
                ],
                args: args, after: before)
            try replicaWait.confirm(on: connection)
            return reply
        }
        guard let parts = reply.array, parts.count == 3, let status = parts[0].string, let likes = parts[1].int else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the publish script")
        }
        if status == "expired" { return .uploadGone }
        guard let stream = LiveStream(streamId: id, fields: Self.hash(parts[2]), likes: likes) else {
            throw RedisError(kind: .protocolError, message: "the publish script returned an unreadable preview")
        }
        try failpoints.afterPublishScript?()
        try indexLive(streamId: id, expiresAt: stream.preview.expiresAt)
        if status == "same" { return .alreadyPublished(stream) }
        recordEvents([.preview(streamId: id, version: stream.preview.version)])
        return .published(stream)
    }

    private func indexLive(streamId: Int64, expiresAt: Int64) throws {
        _ = try pool.withConnection { try $0.command(["ZADD", keys.live, String(expiresAt), String(streamId)]) }
    }

    // MARK: Removal

    /// Removes the live preview of a stream: unconditionally (`onlyIfExpiredAt` nil), or only if
    /// it has expired by that time. Its objects stay until `retireUntil` (the stream enters the
    /// sweep queue for then first); its version counter and likers expire `keepAfterEnd`
    /// seconds later unless a new preview comes. Returns the removed version, nil when nothing
    /// was removed.
    public func retire(
        streamId: Int64, retireUntil: Int64, keepAfterEnd: Int64, now: Int64, onlyIfExpiredAt: Int64? = nil
    ) throws -> Int64? {
        let removed = try pool.withConnection { connection in
            let call = retireCall(
                streamId: streamId, retireUntil: retireUntil, expiredAt: onlyIfExpiredAt, keepAfterEnd: keepAfterEnd,
                now: now)
            let removed = try connection.eval(
                PreviewScripts.retire, keys: call.keys, args: call.args,
                after: enqueueCommands([(streamId, retireUntil)], now: now) + webhookWriteAhead([streamId], now: now))
            try replicaWait.confirm(on: connection)
            return removed
        }
        try unindexIfGone(streamId: streamId)
        guard let version = removed.int, version > 0 else { return nil }
        recordEvents([.removed(streamId: streamId, version: version)])
        return version
    }

    /// The keys and arguments of `PreviewScripts.retire` for one stream.
    func retireCall(streamId: Int64, retireUntil: Int64, expiredAt: Int64?, keepAfterEnd: Int64, now: Int64) -> (
        keys: [String], args: [String]
    ) {
        (
            [
                keys.preview(streamId), keys.garbage(streamId), keys.version(streamId), keys.likers(streamId),
                keys.webhookOutbox(streamId),
            ] + keys.figureKeys(streamId),
            [
                String(retireUntil), expiredAt.map(String.init) ?? "", String(max(1, keepAfterEnd)), keys.feedChanges,
                FeedChange.prefix(origin: origin, kind: .removed, streamId: streamId), webhookArgument(), String(now),
                String(figures.retentionSeconds),
            ]
        )
    }

    /// Drops a stream from the feed index unless it has a preview again: remove first, then
    /// re-add if the hash exists, so a commit racing with us is never lost from the index.
    func unindexIfGone(streamId: Int64) throws {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([
                ["ZREM", keys.live, String(streamId)],
                ["HGET", keys.preview(streamId), PreviewRecord.Field.expiresAt],
            ])
        }
        try Self.check(replies)
        if let expiresAt = replies[1].int {
            try indexLive(streamId: streamId, expiresAt: expiresAt)
        }
    }

    /// Stream IDs in the feed index whose previews expired by `now` (for the sweeper).
    public func expiredStreams(now: Int64, offset: Int = 0, limit: Int) throws -> [Int64] {
        let reply = try pool.withConnection { connection in
            try connection.command([
                "ZRANGEBYSCORE", keys.live, "-inf", String(now), "LIMIT", String(offset), String(limit),
            ])
        }
        return (reply.array ?? []).compactMap { $0.string.flatMap(StreamID.parse) }
    }

    // MARK: Feed

    /// Every live preview with its like count (the part of the feed shared by all viewers).
    public func liveStreams(now: Int64) throws -> [LiveStream] {
        try pool.withConnection { connection in
            let ids = try connection.command(["ZRANGEBYSCORE", keys.live, "(\(now)", "+inf"]).array ?? []
            return try previews(of: ids.compactMap { $0.string.flatMap(StreamID.parse) }, on: connection)
        }
    }

    /// The live previews of `streamIds` with their likes, in their order (those without one left
    /// out): one pipelined round trip, whatever their number.
    public func liveStreams(streamIds: [Int64]) throws -> [LiveStream] {
        guard !streamIds.isEmpty else { return [] }
        return try pool.withConnection { try previews(of: streamIds, on: $0) }
    }

    private func previews(of streamIds: [Int64], on connection: any RedisCommands) throws -> [LiveStream] {
        guard !streamIds.isEmpty else { return [] }
        var commands: [[String]] = []
        for id in streamIds {
            commands.append(["HGETALL", keys.preview(id)])
            commands.append(["SCARD", keys.likers(id)])
        }
        let replies = try connection.pipeline(commands)
        try Self.check(replies)
        var streams: [LiveStream] = []
        for (index, id) in streamIds.enumerated() {
            let fields = Self.hash(replies[2 * index])
            guard let stream = LiveStream(streamId: id, fields: fields, likes: replies[2 * index + 1].int ?? 0)
            else { continue }
            streams.append(stream)
        }
        if figures.ranking == .opens { try scoreOpens(&streams, on: connection) }
        return streams
    }

    /// One viewer's flags for the given streams, in their order: one round trip, whatever the
    /// size of the viewer's seen and liked sets.
    public func viewerFlags(subject: String, streamIds: [Int64]) throws -> [ViewerFlags] {
        guard !streamIds.isEmpty else { return [] }
        let members = streamIds.map { String($0) }
        let replies = try pool.withConnection { connection in
            try connection.pipeline([
                ["HMGET", keys.seen(subject)] + members, ["SMISMEMBER", keys.liked(subject)] + members,
            ])
        }
        try Self.check(replies)
        guard let seen = replies[0].array, let liked = replies[1].array, seen.count == members.count,
            liked.count == members.count
        else {
            throw RedisError(kind: .protocolError, message: "unexpected reply to HMGET/SMISMEMBER")
        }
        return zip(seen, liked).map { seen, liked in
            ViewerFlags(seenVersion: seen.string.flatMap { Int64($0) }, liked: liked.int == 1)
        }
    }

    /// One viewer's whole seen hash and liked set, in one round trip.
    public func viewerHistory(subject: String) throws -> ViewerHistory {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([["HGETALL", keys.seen(subject)], ["SMEMBERS", keys.liked(subject)]])
        }
        try Self.check(replies)
        var history = ViewerHistory()
        for (stream, version) in Self.hash(replies[0]) {
            if let id = StreamID.parse(stream), let version = Int64(version) { history.seen[id] = version }
        }
        for member in replies[1].array ?? [] {
            if let id = member.string.flatMap(StreamID.parse) { history.liked.insert(id) }
        }
        try failpoints.afterViewerHistoryRead?()
        return history
    }

    /// The message announcing a change of `subject`'s history on `keys.viewerChanges`.
    private func viewerChanged(_ subject: String) -> [String] {
        ["PUBLISH", keys.viewerChanges, origin + " " + subject]
    }

    // MARK: Viewer actions

    /// Likes (`like` true) or unlikes a live stream; idempotent. The viewer's liked set lives
    /// `ttl` seconds past the viewer's last like. Returns the stream's like count and the
    /// number of streams in the viewer's liked set, or nil when the stream has no live preview.
    public func setLike(streamId: Int64, subject: String, like: Bool, now: Int64, ttl: Int64) throws -> (
        count: LikeCount, viewerLikes: Int
    )? {
        let reply = try pool.withConnection { connection in
            let reply = try connection.eval(
                PreviewScripts.like,
                keys: [keys.preview(streamId), keys.likers(streamId)]
                    + (figures.enabled ? [keys.figures(streamId)] : []),
                args: [
                    subject, like ? "1" : "0", String(now), keys.feedChanges,
                    FeedChange.prefix(origin: origin, kind: .liked, streamId: streamId),
                ])
            if reply.array != nil { try replicaWait.confirm(on: connection) }  // else nothing written
            return reply
        }
        if reply.int == -1 { return nil }
        guard let parts = reply.array, parts.count == 3, let likes = parts[0].int, let version = parts[1].int,
            let sequence = parts[2].int
        else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the like script: \(reply)")
        }
        let count = LikeCount(likes: likes, version: version, sequence: sequence)
        // The event rides in the same round trip; a failed one is counted, not thrown (below).
        let event = eventCommands([.likes(streamId: streamId, count: count)])
        let replies = try pool.withConnection { connection in
            let replies = try connection.pipeline(
                [
                    [like ? "SADD" : "SREM", keys.liked(subject), String(streamId)],
                    ["EXPIRE", keys.liked(subject), String(ttl)],
                    ["SCARD", keys.liked(subject)],
                    viewerChanged(subject),
                ] + event)
            try Self.check(Array(replies.prefix(4)))
            try replicaWait.confirm(on: connection)
            return replies
        }
        if replies.dropFirst(4).contains(where: { if case .error = $0 { true } else { false } }) {
            eventFailures.add(1, ordering: .relaxed)
        }
        return (count, Int(replies[2].int ?? 0))
    }

    /// Marks the live preview version of a stream seen by `subject`, counted as an impression of
    /// it (`count`, in the same round trip as the read); the viewer's seen hash
    /// lives `ttl` seconds past the last mark. Returns the version marked and the number of
    /// streams in that hash, or nil when the stream has no live preview.
    public func markSeen(streamId: Int64, subject: String, now: Int64, ttl: Int64) throws -> (
        version: Int64, viewerSeen: Int
    )? {
        try pool.withConnection { connection in
            guard
                let version = try count(
                    .impression, streamId: streamId, viewer: Self.figureViewer(subject: subject), now: now,
                    on: connection)?.version
            else { return nil }
            let replies = try connection.pipeline([
                ["HSET", keys.seen(subject), String(streamId), String(version)],
                ["EXPIRE", keys.seen(subject), String(ttl)],
                ["HLEN", keys.seen(subject)],
                viewerChanged(subject),
            ])
            try Self.check(replies)
            return (version, Int(replies[2].int ?? 0))
        }
    }

    /// Drops from a viewer's seen hash and liked set every stream `isLive` rejects, except
    /// `spare` (the stream just marked, which a slightly old live list may not know yet).
    /// Entries of streams that are not live never show in a feed: a stream that comes back
    /// comes with a new preview version, and likes are counted on the stream itself.
    public func trimViewer(subject: String, spare: Int64, isLive: (Int64) -> Bool) throws {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([["HKEYS", keys.seen(subject)], ["SMEMBERS", keys.liked(subject)]])
        }
        try Self.check(replies)
        func stale(_ reply: RedisValue) -> [String] {
            (reply.array ?? []).compactMap(\.string).filter { text in
                guard let id = StreamID.parse(text) else { return true }
                return id != spare && !isLive(id)
            }
        }
        let seen = stale(replies[0])
        let liked = stale(replies[1])
        var commands: [[String]] = []
        if !seen.isEmpty { commands.append(["HDEL", keys.seen(subject)] + seen) }
        if !liked.isEmpty { commands.append(["SREM", keys.liked(subject)] + liked) }
        guard !commands.isEmpty else { return }
        commands.append(viewerChanged(subject))
        try Self.check(try pool.withConnection { try $0.pipeline(commands) })
    }

    // MARK: Reply helpers

    static func hash(_ value: RedisValue) -> [String: String] {
        guard let items = value.array else { return [:] }
        var fields: [String: String] = [:]
        var index = 0
        while index + 1 < items.count {
            if let name = items[index].string, let text = items[index + 1].string { fields[name] = text }
            index += 2
        }
        return fields
    }

    /// Throws the first error reply of a pipeline.
    static func check(_ replies: [RedisValue]) throws {
        for case .error(let message) in replies {
            throw RedisError.reply(message)
        }
    }
}

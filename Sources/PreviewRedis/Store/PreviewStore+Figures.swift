public import PreviewCore

/// Preview versions' figures (`FigureScripts`, `RedisKeys.figures`) and the stream's watch URL.
extension PreviewStore {
    /// What `count` found: the live version it counted against, and the stream's watch URL.
    public struct Counted: Sendable, Equatable {
        public var version: Int64
        /// Empty when none is set.
        public var watchURL: String
    }

    /// Counts one action of `viewer` (`figureViewer`) against the stream's live version: one
    /// script call. Nil when the stream has no live preview.
    public func count(_ kind: FigureKind, streamId: Int64, viewer: String, now: Int64) throws -> Counted? {
        try pool.withConnection { try count(kind, streamId: streamId, viewer: viewer, now: now, on: $0) }
    }

    func count(_ kind: FigureKind, streamId: Int64, viewer: String, now: Int64, on connection: any RedisCommands)
        throws -> Counted?
    {
        // A play is an impression too: both totals, and the impressions estimate.
        let fields = kind == .play ? [kind.field, FigureKind.impression.field] : [kind.field]
        let reply = try connection.eval(
            FigureScripts.count, keys: [keys.preview(streamId), keys.figures(streamId), keys.watchURL(streamId)],
            args: [String(now), fields.joined(separator: " "), kind.distinctSuffix ?? "", viewer])
        guard let parts = reply.array, parts.count == 2, let version = parts[0].int, let watch = parts[1].string else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the figure count script")
        }
        return version > 0 ? Counted(version: version, watchURL: watch) : nil
    }

    /// The figures of every version of the stream still kept, newest first: two round trips.
    public func figures(streamId: Int64) throws -> [PreviewFigures] {
        try pool.withConnection { connection in
            let index = try connection.command(["ZRANGE", keys.figures(streamId), "0", "-1", "REV"])
            let versions = (index.array ?? []).compactMap { $0.string.flatMap { Int64($0) } }
            guard !versions.isEmpty else { return [] }
            let commands = versions.flatMap { version in
                [
                    ["HGETALL", keys.figures(streamId, version: version)],
                    ["PFCOUNT", keys.figures(streamId, version: version, distinct: FigureKind.impression.field)],
                    ["PFCOUNT", keys.figures(streamId, version: version, distinct: FigureKind.open.field)],
                ]
            }
            let replies = try connection.pipeline(commands)
            try Self.check(replies)
            return versions.enumerated().compactMap { offset, version in
                var fields = Self.hash(replies[offset * 3])
                fields[PreviewFigures.Field.distinctImpressions] = replies[offset * 3 + 1].int.map(String.init)
                fields[PreviewFigures.Field.distinctOpens] = replies[offset * 3 + 2].int.map(String.init)
                return PreviewFigures(previewVersion: version, fields: fields)
            }
        }
    }

    /// Sets each stream's `openScore` from its live version's opens and distinct impressions:
    /// one more pipelined round trip of a feed reload, made only when the feed ranks by opens.
    func scoreOpens(_ streams: inout [LiveStream], on connection: any RedisCommands) throws {
        guard !streams.isEmpty else { return }
        let commands = streams.flatMap { stream in
            let (id, version) = (stream.preview.streamId, stream.preview.version)
            return [
                ["HGET", keys.figures(id, version: version), FigureKind.open.field],
                ["PFCOUNT", keys.figures(id, version: version, distinct: FigureKind.impression.field)],
            ]
        }
        let replies = try connection.pipeline(commands)
        try Self.check(replies)
        for index in streams.indices {
            let opens = replies[2 * index].string.flatMap { Int64($0) } ?? 0
            streams[index].openScore = FeedRanking.openScore(
                opens: opens, distinctImpressions: replies[2 * index + 1].int ?? 0)
        }
    }

    /// The stream's watch URL, "" when none is set.
    public func watchURL(streamId: Int64) throws -> String {
        try pool.withConnection { try $0.command(["GET", keys.watchURL(streamId)]).string ?? "" }
    }

    /// Sets the stream's watch URL (checked by `WatchURL` first), kept for the figure retention
    /// past this set or the stream's next commit; "" removes it.
    public func setWatchURL(streamId: Int64, _ url: String) throws {
        let command =
            url.isEmpty
            ? ["DEL", keys.watchURL(streamId)]
            : ["SET", keys.watchURL(streamId), url, "EX", String(figures.retentionSeconds)]
        try pool.withConnection { connection in
            _ = try connection.command(command)
            try replicaWait.confirm(on: connection)
        }
    }

    /// Who a viewer is in the distinct-viewer estimates: `sub:<subject>` for a token's subject,
    /// as the rate limiter names a caller.
    public static func figureViewer(subject: String) -> String { "sub:" + subject }
}

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
        let names = kind == .play ? [kind.field, FigureKind.impression.field] : [kind.field]
        // Only the keys this call touches are declared: a key that does not exist yet (an estimate
        // nobody was counted in, a watch URL never set) makes a migrating slot answer TRYAGAIN.
        var scriptKeys = [keys.preview(streamId)]
        let estimate = figures.enabled ? kind.distinctSuffix : nil
        if figures.enabled { scriptKeys.append(keys.figures(streamId)) }
        if let estimate { scriptKeys.append(keys.figures(streamId, distinct: estimate)) }
        let readsWatchURL = kind == .open
        if readsWatchURL { scriptKeys.append(keys.watchURL(streamId)) }
        let reply = try connection.eval(
            FigureScripts.count, keys: scriptKeys,
            args: [
                String(now), names.joined(separator: " "), estimate == nil ? "" : "1", viewer, readsWatchURL ? "1" : "",
                figures.enabled ? "1" : "",
            ])
        guard let parts = reply.array, parts.count == 2, let version = parts[0].int, let watch = parts[1].string else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the figure count script")
        }
        return version > 0 ? Counted(version: version, watchURL: watch) : nil
    }

    /// The figures of every version of the stream still kept, newest first (closed versions past
    /// the retention at `now` left out): one round trip.
    public func figures(streamId: Int64, now: Int64) throws -> [PreviewFigures] {
        let replies = try pool.withConnection { connection in
            try connection.pipeline(
                [["HGETALL", keys.figures(streamId)]]
                    + ["impressions", "opens"].map {
                        ["PFCOUNT", keys.figures(streamId, distinct: $0)]
                    })
        }
        try Self.check(replies)
        var byVersion: [Int64: [String: String]] = [:]
        for (field, value) in Self.hash(replies[0]) {
            guard let dot = field.firstIndex(of: "."), let version = Int64(field[..<dot]) else { continue }
            byVersion[version, default: [:]][String(field[field.index(after: dot)...])] = value
        }
        return byVersion.keys.sorted(by: >).compactMap { version in
            var fields = byVersion[version] ?? [:]
            if let until = fields[PreviewFigures.Field.liveUntil].flatMap({ Int64($0) }) {
                guard until + figures.retentionSeconds >= now else { return nil }
            } else {
                // The live version: its estimates are still counting.
                fields[PreviewFigures.Field.distinctImpressions] = replies[1].int.map(String.init)
                fields[PreviewFigures.Field.distinctOpens] = replies[2].int.map(String.init)
            }
            return PreviewFigures(previewVersion: version, fields: fields)
        }
    }

    /// Sets each stream's `openScore` from its live version's opens and distinct impressions:
    /// one more pipelined round trip of a feed reload, made only when the feed ranks by opens.
    func scoreOpens(_ streams: inout [LiveStream], on connection: any RedisCommands) throws {
        guard !streams.isEmpty else { return }
        let commands = streams.flatMap { stream in
            let (id, version) = (stream.preview.streamId, stream.preview.version)
            return [
                ["HGET", keys.figures(id), "\(version).\(FigureKind.open.field)"],
                ["PFCOUNT", keys.figures(id, distinct: FigureKind.impression.field)],
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

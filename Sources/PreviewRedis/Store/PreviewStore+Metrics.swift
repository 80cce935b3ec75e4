import PreviewCore

extension PreviewStore {
    /// Uploads issued and not committed whose commit deadline is not past, for the pending-uploads
    /// gauge: the `ZCOUNT` of the pending set of each stream touched (an upload issued, see
    /// `enqueueCommands`) since `touchedSince`, at most `maxStreams` of them, the most recently
    /// touched first. Two round trips. An estimate when more streams than `maxStreams` have
    /// uploads in flight.
    public func pendingUploadCount(now: Int64, touchedSince: Int64, maxStreams: Int = 10_000) throws -> Int64 {
        let streams = try pool.withConnection { connection in
            try connection.command([
                "ZREVRANGEBYSCORE", keys.sweepTouched, "+inf", String(touchedSince), "LIMIT", "0", String(maxStreams),
            ])
        }
        let ids = (streams.array ?? []).compactMap { $0.string.flatMap { Int64($0) } }
        guard !ids.isEmpty else { return 0 }
        let replies = try pool.withConnection { connection in
            try connection.pipeline(ids.map { ["ZCOUNT", keys.pendingUploads($0), String(now), "+inf"] })
        }
        try Self.check(replies)
        return replies.reduce(0) { $0 + ($1.int ?? 0) }
    }
}

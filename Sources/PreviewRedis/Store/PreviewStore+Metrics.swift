import PreviewCore

extension PreviewStore {
    /// Uploads of `streamIds` issued and not committed whose commit deadline is after `now`:
    /// the `ZCOUNT` of each stream's pending set, in one pipeline (for the pending-uploads gauge).
    public func pendingUploadCount(streamIds: [Int64], now: Int64) throws -> Int64 {
        guard !streamIds.isEmpty else { return 0 }
        let replies = try pool.withConnection { connection in
            try connection.pipeline(streamIds.map { ["ZCOUNT", keys.pendingUploads($0), "(\(now)", "+inf"] })
        }
        try Self.check(replies)
        return replies.reduce(0) { $0 + ($1.int ?? 0) }
    }
}

import PreviewCore

/// The moderation hook's refusal of an upload, kept in the upload's hash (`PendingUpload.hookRefusal`)
/// so that committing it again is answered without asking the hook again, on any replica, until
/// the upload ends (published, or past its commit deadline and swept, or its TTL).
extension PreviewStore {
    /// Records `reason` as the hook's refusal of the upload, if its record still exists: an
    /// upload swept meanwhile is not brought back as a hash without a TTL.
    public func rememberHookRefusal(streamId: Int64, uploadId: String, reason: String) throws {
        try pool.withConnection { connection in
            _ = try connection.eval(
                Self.rememberRefusal, keys: [keys.upload(streamId, uploadId)],
                args: [PendingUpload.Field.hookRefusal, reason])
            try replicaWait.confirm(on: connection)
        }
    }

    /// KEYS: upload. ARGV: field, reason. HSET only on an existing hash (there is no HSET XX).
    private static let rememberRefusal = RedisScript(
        name: "rememberHookRefusal",
        source: """
            if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
            return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
            """)
}

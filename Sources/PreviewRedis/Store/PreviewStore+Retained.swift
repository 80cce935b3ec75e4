import PreviewCore

/// Retained bytes per token subject (`RetainedScripts`); the per-stream count is kept by the
/// stream's own upload and commit scripts.
///
/// A subject's keys live in their own slot, so counting an upload takes two steps: the
/// subject's reservation here first, then the stream's script (`recordUpload`), and a refusal
/// by the stream releases the reservation. That is safe without one atomic step: the two counts
/// are independent limits, a reservation only ever counts bytes that may be uploaded (never
/// fewer), and a step lost between the two (a crash, a lost connection) leaves a reservation
/// that stops counting by itself at its due time (the commit deadline + 1). The worst case is
/// a subject refused early for at most one upload window, never a subject let past its limit.
extension PreviewStore {
    /// One object as it counts: its key, bytes, and when it stops counting.
    public struct RetainedObject: Sendable, Equatable {
        public var key: String
        public var bytes: Int64
        public var due: Int64

        public init(key: String, bytes: Int64, due: Int64) {
            self.key = key
            self.bytes = bytes
            self.due = due
        }
    }

    /// Counts `objects` for `subject` unless that takes it over `maxBytes` (0: no limit). Nil
    /// when counted; otherwise the seconds until the subject's oldest counted object stops
    /// counting.
    public func reserveRetained(subject: String, objects: [RetainedObject], now: Int64, maxBytes: Int64) throws
        -> Int64?
    {
        guard let due = objects.first?.due else { return nil }
        var args = [String(now), String(max(0, maxBytes)), String(due)]
        for object in objects { args += [object.key, String(object.bytes)] }
        let reply = try pool.withConnection { connection in
            let reply = try connection.eval(
                RetainedScripts.reserve, keys: keys.retained(subject: subject).all, args: args)
            try replicaWait.confirm(on: connection)
            return reply
        }
        guard let parts = reply.array, parts.count == 2, let status = parts[0].string, let time = parts[1].int else {
            throw RedisError(kind: .protocolError, message: "unexpected reply from the reserveRetained script")
        }
        return status == "quota" ? max(1, time - now) : nil
    }

    /// Sets the bytes and due times of `subject`'s objects (after a commit: the real sizes).
    public func settleRetained(subject: String, objects: [RetainedObject], now: Int64) throws {
        guard !objects.isEmpty else { return }
        var args = [String(now)]
        for object in objects { args += [object.key, String(object.bytes), String(object.due)] }
        _ = try pool.withConnection { connection in
            try connection.eval(RetainedScripts.settle, keys: keys.retained(subject: subject).all, args: args)
        }
    }

    /// Stops counting `objectKeys` for `subject` (an upload refused after its reservation).
    public func releaseRetained(subject: String, objectKeys: [String]) throws {
        guard !objectKeys.isEmpty else { return }
        _ = try pool.withConnection { connection in
            try connection.eval(RetainedScripts.release, keys: keys.retained(subject: subject).all, args: objectKeys)
        }
    }

    /// The bytes a stream's objects hold now, as counted (entries past their due time are
    /// dropped only when the next upload is counted, so they are left out here).
    public func retainedBytes(streamId: Int64, now: Int64) throws -> Int64 {
        try retainedBytes(keys.retained(streamId), now: now)
    }

    /// The bytes a subject's objects hold now, as `retainedBytes(streamId:now:)` counts them.
    public func retainedBytes(subject: String, now: Int64) throws -> Int64 {
        try retainedBytes(keys.retained(subject: subject), now: now)
    }

    private func retainedBytes(_ retained: RetainedKeys, now: Int64) throws -> Int64 {
        let replies = try pool.withConnection { connection in
            try connection.pipeline([
                ["GET", retained.bytes], ["ZRANGEBYSCORE", retained.due, "-inf", String(now)],
            ])
        }
        try Self.check(replies)
        let gone = (replies[1].array ?? []).compactMap(\.string)
        var expired: Int64 = 0
        if !gone.isEmpty {
            let sizes = try pool.withConnection { try $0.command(["HMGET", retained.sizes] + gone) }
            for size in sizes.array ?? [] { expired += size.string.flatMap { Int64($0) } ?? 0 }
        }
        return (replies[0].string.flatMap { Int64($0) } ?? 0) - expired
    }

    /// When a committed object stops counting: the preview's expiry plus the grace its
    /// replacement or end would give it (`retireUntil - now`).
    static func retainedUntil(_ preview: PreviewRecord, retireUntil: Int64, now: Int64) -> Int64 {
        preview.expiresAt + max(0, retireUntil - now)
    }
}

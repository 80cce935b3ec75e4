import PreviewCore
package import PreviewRedis

/// Removes expired previews and deletes objects nobody can use any more, draining everything
/// due in batches. One sweeper acts at a time (a lease in Redis with a fencing token checked
/// by every queue change, kept alive by a heartbeat thread); a sweeper that loses its lease
/// stops, and the next holder takes over its claims at once. Deciding what is garbage is
/// atomic per stream and final (object keys are never reused and a condemned upload can no
/// longer be committed), so a delete repeated after a crash is harmless.
package struct Sweeper: Sendable {
    let store: PreviewStore
    let storage: any ObjectStorage
    let settings: SweepSettings

    package init(store: PreviewStore, storage: any ObjectStorage, settings: SweepSettings) {
        self.store = store
        self.storage = storage
        self.settings = settings
    }

    /// What a run did, and why it stopped.
    package struct Report: Sendable, Equatable {
        var previewsRemoved = 0
        var objectsDeleted = 0
        /// Due keys found in use by the live preview (left alone).
        var objectsKept = 0
        /// Deletes that failed this run; their keys stay queued with backoff.
        package var failures = 0
        var seconds = 0.0
        package var stop = Stop.drained
        /// When `stop` is `leaseHeld`: seconds until the other sweeper's lease ends, unless it
        /// renews it (nil: unknown).
        var leaseEndsInSeconds: Double?

        package enum Stop: String, Sendable {
            /// Nothing more is due.
            case drained
            /// Another sweeper holds the lease; this one did nothing.
            case leaseHeld = "lease_held"
            /// The lease expired or was taken while this one worked; it stopped acting.
            case leaseLost = "lease_lost"
            /// `maxSeconds` ran out with work left.
            case timeUp = "time_up"
            /// Every delete of a batch found the store unreachable.
            case storeUnreachable = "store_unreachable"
            /// The process is shutting down.
            case stopped
        }

        /// `swept previews=N objects=M kept=K failed=F seconds=S stop=REASON`, and
        /// ` lease_ends_in=S` when another sweeper held the lease.
        package var summary: String {
            var line =
                "swept previews=\(previewsRemoved) objects=\(objectsDeleted) kept=\(objectsKept) "
                + "failed=\(failures) seconds=\(Self.tenths(seconds)) stop=\(stop.rawValue)"
            if stop == .leaseHeld, let ends = leaseEndsInSeconds { line += " lease_ends_in=\(Self.tenths(ends))" }
            return line
        }

        private static func tenths(_ seconds: Double) -> String {
            let tenths = Int((max(0, seconds) * 10).rounded())
            return "\(tenths / 10).\(tenths % 10)"
        }

        var didWork: Bool { previewsRemoved + objectsDeleted + objectsKept + failures > 0 }
    }

    /// Drains what is due at `now()` until nothing is, `maxSeconds` pass, the lease is lost or
    /// `shouldStop()` says so (checked between batches and between slices of deletes). Throws
    /// `RedisError` when Redis fails; what was done stays done.
    package func drain(maxSeconds: Double, now: () -> Int64, shouldStop: () -> Bool = { false }) throws -> Report {
        let started = ContinuousClock.now
        var report = Report()
        let token: Int64
        switch try store.acquireSweepLease(milliseconds: settings.leaseMilliseconds) {
        case .acquired(let acquired):
            token = acquired
        case .held(let endsInMilliseconds):
            report.stop = .leaseHeld
            report.leaseEndsInSeconds = endsInMilliseconds.map { Double($0) / 1000 }
            report.seconds = Self.seconds(since: started)
            return report
        }
        let heartbeat = SweepLeaseHeartbeat(
            store: store, token: token, leaseMilliseconds: settings.leaseMilliseconds,
            intervalMilliseconds: settings.renewMilliseconds)
        heartbeat.start()
        defer {
            heartbeat.stop()
            // Ignored failure: an unreleased lease only expires after leaseMilliseconds.
            try? store.releaseSweepLease(token: token)
        }
        while true {
            guard Self.seconds(since: started) < maxSeconds else {
                report.stop = .timeUp
                break
            }
            guard !shouldStop() else {
                report.stop = .stopped
                break
            }
            guard !heartbeat.isLost else {
                report.stop = .leaseLost
                break
            }
            guard
                let stop = try batch(
                    token: token, now: now(), heartbeat: heartbeat, shouldStop: shouldStop, report: &report)
            else {
                continue
            }
            report.stop = stop
            break
        }
        report.seconds = Self.seconds(since: started)
        return report
    }

    /// One batch: upgrade entries, expired previews, then due garbage. Returns why to stop, or
    /// nil to go on.
    private func batch(
        token: Int64, now: Int64, heartbeat: SweepLeaseHeartbeat, shouldStop: () -> Bool, report: inout Report
    ) throws -> Report.Stop? {
        var progressed = try store.migrateLegacyGarbage(now: now, limit: settings.batchStreams) > 0
        let expired = try store.expiredStreams(now: now, limit: settings.batchStreams)
        report.previewsRemoved += try store.retireExpired(
            streamIds: expired, now: now, retireUntil: now + settings.graceSeconds,
            keepAfterEnd: settings.keepAfterEndSeconds)
        progressed = progressed || !expired.isEmpty

        let claimUntil = now + settings.claimSeconds
        guard
            let claimed = try store.claimDueStreams(
                token: token, now: now, limit: settings.batchStreams, claimUntil: claimUntil)
        else { return .leaseLost }
        let streams = claimed.streamIds
        guard !streams.isEmpty else { return progressed ? nil : .drained }

        let collected = try store.collectGarbage(
            streamIds: streams, takenOver: claimed.takenOver, now: now, limit: settings.keysPerStream,
            claimUntil: claimUntil, retireUntil: now + settings.graceSeconds,
            keepAfterEnd: settings.keepAfterEndSeconds)
        report.previewsRemoved += collected.filter { $0.retiredVersion != nil }.count
        let keys = collected.flatMap(\.keys)
        // In slices, so a lost lease or a shutdown stops the deletes soon: keys not tried stay
        // claimed (the batch is not settled), and the next lease holder takes them over at once.
        var failed: [String: StorageError] = [:]
        var tried = Set<String>()
        for start in stride(from: 0, to: keys.count, by: settings.deleteSlice) {
            guard !heartbeat.isLost, !shouldStop() else { break }
            let slice = Array(keys[start..<min(keys.count, start + settings.deleteSlice)])
            failed.merge(storage.delete(keys: slice, concurrency: settings.concurrency)) { first, _ in first }
            tried.formUnion(slice)
        }
        var outcomes: [PreviewStore.DeleteOutcome] = []
        for (id, found) in zip(streams, collected) {
            report.objectsKept += found.kept
            outcomes.append(
                PreviewStore.DeleteOutcome(
                    streamId: id, deleted: found.keys.filter { tried.contains($0) && failed[$0] == nil },
                    failed: found.keys.filter { failed[$0] != nil }))
        }
        report.objectsDeleted += tried.count - failed.count
        report.failures += failed.count
        if let example = failed.first {
            Log.warn(
                "sweep_delete_failed",
                ["count": String(failed.count), "key": example.key, "error": example.value.description])
        }
        let next = try store.acknowledgeDeletes(
            outcomes, now: now, backoffSeconds: settings.backoffSeconds, maxBackoffSeconds: settings.maxBackoffSeconds)
        guard tried.count == keys.count else { return heartbeat.isLost ? .leaseLost : .stopped }
        guard
            try store.settleSweep(
                token: token, now: now, settleSeconds: settings.settleSeconds, claimUntil: claimUntil,
                next: Array(zip(streams, next)))
        else { return .leaseLost }
        if !keys.isEmpty, failed.count == keys.count, failed.values.allSatisfy(\.unreachable) {
            return .storeUnreachable
        }
        return nil
    }

    /// What a run would do now, changing nothing: one line per stream it would expire and per
    /// object it would delete, handed to `line`. Counts go into the report.
    package func dryRun(now: Int64, line: (String) -> Void) throws -> Report {
        let started = ContinuousClock.now
        var report = Report()
        var offset = 0
        while true {
            let expired = try store.expiredStreams(now: now, offset: offset, limit: settings.batchStreams)
            if expired.isEmpty { break }
            for id in expired { line("would expire stream \(id)") }
            report.previewsRemoved += expired.count
            offset += expired.count
        }
        offset = 0
        while true {
            let streams = try store.dueStreams(now: now, offset: offset, limit: settings.batchStreams)
            if streams.isEmpty { break }
            for key in try store.peekGarbage(streamIds: streams, now: now, limit: settings.keysPerStream) {
                line("would delete \(key)")
                report.objectsDeleted += 1
            }
            offset += streams.count
        }
        report.seconds = Self.seconds(since: started)
        return report
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }
}

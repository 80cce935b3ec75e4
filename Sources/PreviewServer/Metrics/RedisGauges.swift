package import PreviewCore
package import PreviewRedis
import Synchronization

/// The gauges whose values live in Redis (pending uploads, the sweeper's backlog), read by one
/// background thread every `interval` seconds and served from memory: a scrape costs no Redis
/// call however many streams there are or however often it comes. When a read fails the last
/// values stay, and `streampreview_redis_gauges_age_seconds` shows how old they are.
package final class RedisGauges: Sendable {
    struct Values: Equatable {
        var pendingUploads: Int64?
        var sweepQueued: Int64?
        var sweepDue: Int64?
        /// Wall-clock milliseconds of the last refresh that read them all; nil before the first.
        var refreshedAtMilliseconds: Int64?
    }

    private let values = Mutex(Values())
    private let thread = Mutex<PeriodicThread?>(nil)

    init() {}

    var current: Values { values.withLock { $0 } }

    /// Reads every gauge now (a few pipelined round trips; the pending count asks up to 10,000
    /// streams' pending sets).
    func refresh(store: PreviewStore, policy: UploadPolicy, nowMilliseconds: Int64) throws {
        // An upload is pending at most this long after it was issued.
        let pendingFor = policy.uploadURLTTL + policy.commitWindow
        let now = nowMilliseconds / 1000
        let pending = try store.pendingUploadCount(now: now, touchedSince: now - pendingFor)
        let backlog = try store.sweepBacklog(now: now)
        values.withLock {
            $0 = Values(
                pendingUploads: pending, sweepQueued: backlog.queued, sweepDue: backlog.due,
                refreshedAtMilliseconds: nowMilliseconds)
        }
    }

    /// Refreshes at once, then every `interval` seconds, on a thread of its own until `stop()`.
    package func start(
        store: PreviewStore, policy: UploadPolicy, interval: Double, nowMilliseconds: @escaping @Sendable () -> Int64
    ) {
        let refresher = PeriodicThread(name: "metrics-gauges", interval: interval)
        thread.withLock { $0 = refresher }
        let failing = Atomic(false)
        refresher.start { [self] in
            do {
                try refresh(store: store, policy: policy, nowMilliseconds: nowMilliseconds())
                failing.store(false, ordering: .relaxed)
            } catch {
                // Counted by the Redis error metrics; logged once per outage.
                if !failing.exchange(true, ordering: .relaxed) {
                    Log.warn("metrics_refresh_failed", ["error": "\(error)"])
                }
            }
            return true
        }
    }

    package func stop() { thread.withLock { $0 }?.stop() }

    func render(into text: inout PrometheusText, nowMilliseconds: Int64) {
        let values = current
        guard let refreshed = values.refreshedAtMilliseconds else { return }
        if let pending = values.pendingUploads {
            text.family(
                "streampreview_pending_uploads", .gauge,
                help: "Uploads issued and not committed whose commit deadline is not past (up to 10000 streams).")
            text.sample("streampreview_pending_uploads", pending)
        }
        if let queued = values.sweepQueued, let due = values.sweepDue {
            text.family("streampreview_sweeper_queued_streams", .gauge, help: "Streams in the sweeper's queue.")
            text.sample("streampreview_sweeper_queued_streams", queued)
            text.family(
                "streampreview_sweeper_due_streams", .gauge, help: "Streams in the sweeper's queue that are due now.")
            text.sample("streampreview_sweeper_due_streams", due)
        }
        text.family(
            "streampreview_redis_gauges_age_seconds", .gauge,
            help: "Seconds since the gauges read from Redis (pending uploads, sweeper queue) were last refreshed.")
        text.sample("streampreview_redis_gauges_age_seconds", max(0, nowMilliseconds - refreshed) / 1000)
    }
}

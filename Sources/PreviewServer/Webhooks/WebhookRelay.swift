import PreviewCore
import PreviewRedis

/// Moves events from the streams' outboxes into the delivery streams of this process's URLs
/// (`PreviewStore.relayWebhookOutboxes`, a few per stream and URL at a time), counts and logs
/// the events full outboxes dropped, and reads the backlog gauges. Any number of processes may
/// relay at once: each takes the outboxes it claimed, and an event relayed twice (a relay that
/// died between its two steps) is delivered twice with the same ID.
struct WebhookRelay: Sendable {
    let store: PreviewStore
    let targets: [PreviewStore.WebhookTarget]
    let policy: WebhookRetryPolicy
    let metrics: WebhookMetrics
    /// Outboxes per pass.
    var batch = 500
    /// How long an outbox found empty stays indexed after its last announced event: longer than
    /// the write-ahead index entry can precede its script.
    static let settleSeconds: Int64 = 60

    /// Relays until no due outbox is left, at most `maxPasses` passes or until `shouldStop`;
    /// returns the events relayed (each once) and the deliveries added.
    @discardableResult
    func drain(now: () -> Int64, maxPasses: Int = 100, shouldStop: () -> Bool = { false }) throws -> (
        events: Int, deliveries: Int
    ) {
        var events = 0
        var deliveries = 0
        for _ in 0..<maxPasses {
            guard !shouldStop() else { break }
            let report = try store.relayWebhookOutboxes(
                targets: targets, now: now(), limit: batch, settleSeconds: Self.settleSeconds,
                deadline: policy.deadline(createdAt:))
            events += report.events
            deliveries += report.deliveries
            metrics.relayed.add(UInt64(report.events))
            if report.unreadable > 0 {
                Log.warn("webhook_outbox_unreadable", ["entries": String(report.unreadable)])
            }
            logDropped(report.dropped)
            guard report.more else { break }
        }
        return (events, deliveries)
    }

    /// Counts the events full outboxes dropped, with one line per pass naming the stream that
    /// dropped most (a stream whose receiver fails while it commits at its limit).
    private func logDropped(_ dropped: [Int64: Int]) {
        guard let most = dropped.max(by: { ($0.value, $1.key) < ($1.value, $0.key) }) else { return }
        let total = dropped.values.reduce(0, +)
        metrics.dropped.add(UInt64(total))
        Log.warn(
            "webhook_events_dropped",
            [
                "events": String(total), "streams": String(dropped.count), "stream_id": String(most.key),
                "stream_events": String(most.value), "limit": String(store.webhookOutboxLimit),
            ])
    }

    /// Reads the backlog gauges into the metrics.
    func refreshBacklog() throws {
        metrics.setBacklog(try store.webhookBacklog(endpoints: targets.map(\.endpoint)))
    }

    /// Removes consumers of the delivery groups that have owned nothing for an hour (a process
    /// or a sweep run that ended).
    func pruneConsumers() throws {
        for target in targets {
            try store.pruneWebhookConsumers(endpoint: target.endpoint, idleMilliseconds: 3_600_000)
        }
    }
}

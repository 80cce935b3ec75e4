import PreviewCore
import PreviewRedis

/// Moves events from the streams' outboxes into the delivery streams of this process's URLs
/// (`PreviewStore.relayWebhookOutboxes`), and reads the backlog gauges. Any number of processes
/// may relay at once: each takes the outboxes it claimed, and an event relayed twice (a relay
/// that died between its two steps) is delivered twice with the same ID.
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
    /// returns the events relayed.
    func drain(now: () -> Int64, maxPasses: Int = 100, shouldStop: () -> Bool = { false }) throws -> Int {
        var events = 0
        for _ in 0..<maxPasses {
            guard !shouldStop() else { break }
            let report = try store.relayWebhookOutboxes(
                targets: targets, now: now(), limit: batch, settleSeconds: Self.settleSeconds,
                deadline: policy.deadline(createdAt:))
            events += report.events
            metrics.relayed.add(UInt64(report.events))
            if report.unreadable > 0 {
                Log.warn("webhook_outbox_unreadable", ["entries": String(report.unreadable)])
            }
            guard report.more else { break }
        }
        return events
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

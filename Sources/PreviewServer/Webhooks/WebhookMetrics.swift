import PreviewCore
import PreviewRedis
import Synchronization

/// What this process's webhook delivery did (counters), and what waits in Redis (gauges
/// refreshed by the relay thread, so a scrape costs no Redis call).
package final class WebhookMetrics: Sendable {
    /// Outcomes of delivery attempts: a 2xx answer, another answer, no answer in time, no
    /// connection (or a broken one).
    enum Outcome: String, CaseIterable {
        case delivered
        case httpError = "http_error"
        case timeout
        case connectionError = "connection_error"
    }

    private let attempts = Outcome.allCases.map { _ in MetricCounter() }
    /// Attempts after the first of their delivery.
    let retries = MetricCounter()
    /// Deliveries this process moved to the dead letters.
    let deadLetters = MetricCounter()
    /// Events this process moved from the outboxes to the delivery streams.
    let relayed = MetricCounter()
    /// Events full outboxes dropped (their oldest), as this process's relay found them.
    let dropped = MetricCounter()
    private let backlog = Mutex<PreviewStore.WebhookBacklog?>(nil)

    package init() {}

    func record(_ outcome: Outcome) {
        attempts[Outcome.allCases.firstIndex(of: outcome) ?? 0].add()
    }

    func setBacklog(_ value: PreviewStore.WebhookBacklog) { backlog.withLock { $0 = value } }

    func render(into text: inout PrometheusText) {
        text.family(
            "streampreview_webhook_deliveries_total", .counter,
            help: "Webhook delivery attempts made by this process, by outcome.")
        for (slot, outcome) in Outcome.allCases.enumerated() {
            text.sample(
                "streampreview_webhook_deliveries_total", labels: [("outcome", outcome.rawValue)], attempts[slot].value)
        }
        let counters: [(String, String, MetricCounter)] = [
            ("streampreview_webhook_retries_total", "Webhook delivery attempts after the first (retries).", retries),
            (
                "streampreview_webhook_dead_letters_total",
                "Webhook deliveries this process gave up on (moved to the dead letters).", deadLetters
            ),
            ("streampreview_webhook_relayed_total", "Events moved from stream outboxes to delivery streams.", relayed),
            (
                "streampreview_webhook_events_dropped_total",
                "Webhook events dropped undelivered: the oldest of a stream whose outbox was full (--webhook-backlog-per-stream).",
                dropped
            ),
        ]
        for (name, help, counter) in counters {
            text.family(name, .counter, help: help)
            text.sample(name, counter.value)
        }
        guard let backlog = backlog.withLock({ $0 }) else { return }
        let gauges: [(String, String, Int64)] = [
            (
                "streampreview_webhook_backlog",
                "Webhook deliveries queued for this process's URLs and not yet made (all replicas; at most "
                    + "\(PreviewStore.webhookDeliveryWindow) per stream and URL, the rest wait in the outboxes).",
                backlog.undelivered
            ),
            (
                "streampreview_webhook_pending_retries", "Of those, deliveries that failed and wait for a retry.",
                backlog.pendingRetries
            ),
            (
                "streampreview_webhook_outbox_streams", "Streams whose outbox may hold events not yet relayed.",
                backlog.outboxStreams
            ),
            ("streampreview_webhook_dead_letter_stream_length", "Dead letters kept in Redis.", backlog.deadLetters),
        ]
        for (name, help, value) in gauges {
            text.family(name, .gauge, help: help)
            text.sample(name, value)
        }
    }
}

import PreviewCore
import PreviewHTTPClient
import PreviewRedis

/// Webhook delivery in `streampreview sweep`: relay every outbox, then deliver what is due to
/// each URL (new deliveries and retries whose backoff is over) with the configured concurrency,
/// relaying again as answers free the streams' places, until nothing is due or the time is up.
/// Deliveries that fail stay pending for the next run (or a serve) after their backoff, so a
/// sweep job run on a schedule delivers on its own.
package struct WebhookSweepRun {
    let setup: WebhookSetup

    package init(setup: WebhookSetup) { self.setup = setup }

    package struct Report: Equatable {
        package var relayed = 0
        package var delivered = 0
        package var failed = 0
        package var deadLettered = 0
        package var timeUp = false

        var summary: String {
            "webhooks relayed=\(relayed) delivered=\(delivered) failed=\(failed) dead=\(deadLettered)"
                + (timeUp ? " stop=time_up" : "")
        }
    }

    package func run(until deadline: ContinuousClock.Instant) throws -> Report {
        var report = Report()
        let timeUp = { ContinuousClock.now >= deadline }
        report.relayed = try setup.relay.drain(now: setup.deliverer.now, maxPasses: .max, shouldStop: timeUp).events
        let store = setup.deliverer.store
        let concurrency = max(1, setup.concurrency)
        for endpoint in setup.endpoints {
            try store.ensureWebhookGroup(endpoint: endpoint.id)
            var cursor = "-"
            while !timeUp() {
                var due = try store.dueWebhookRetries(
                    endpoint: endpoint.id, consumer: setup.deliverer.consumer, policy: setup.deliverer.policy,
                    cursor: &cursor, limit: concurrency)
                if due.count < concurrency {
                    due += try store.newWebhookDeliveries(
                        endpoint: endpoint.id, consumer: setup.deliverer.consumer, limit: concurrency - due.count)
                }
                // Nothing due now and the pending list was scanned to its end: go on only with what
                // the answers so far let the relay add.
                if due.isEmpty && cursor == "-" {
                    let relayed = try setup.relay.drain(
                        now: setup.deliverer.now, maxPasses: .max, shouldStop: timeUp)
                    report.relayed += relayed.events
                    if relayed.deliveries == 0 { break }
                    continue
                }
                let deliverer = setup.deliverer
                let batch = due
                let results = BoundedWork.map(count: batch.count, concurrency: concurrency) { index in
                    do {
                        return deliverer.deliver(batch[index], client: try HTTPClient())
                    } catch {
                        return WebhookDeliverer.Result.unrecorded
                    }
                }
                for result in results {
                    switch result {
                    case .delivered: report.delivered += 1
                    case .retry, .unrecorded: report.failed += 1
                    case .deadLettered: report.deadLettered += 1
                    }
                }
            }
        }
        report.timeUp = timeUp()
        try setup.relay.refreshBacklog()
        try setup.relay.pruneConsumers()
        return report
    }
}

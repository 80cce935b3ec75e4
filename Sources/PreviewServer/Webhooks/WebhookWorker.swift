import Foundation
import PreviewCore
import PreviewRedis
import Synchronization

/// Webhook delivery in `serve`, on threads of its own: one relay thread (outboxes to delivery
/// streams every second, the backlog gauges, and now and then the removal of consumers that
/// ended), and per URL the dispatcher and senders of `WebhookEndpointSenders`. With a
/// concurrency of 0 it does nothing: the process records events and others deliver them.
package final class WebhookWorker: Sendable {
    let setup: WebhookSetup
    private let relayThread: PeriodicThread
    private let senders: [WebhookEndpointSenders]
    private let passes = Atomic<Int>(0)

    package init(setup: WebhookSetup, intervalSeconds: Double = 1) {
        self.setup = setup
        relayThread = PeriodicThread(name: "webhook-relay", interval: intervalSeconds)
        senders =
            setup.concurrency > 0
            ? setup.endpoints.map {
                WebhookEndpointSenders(endpoint: $0, deliverer: setup.deliverer, concurrency: setup.concurrency)
            } : []
    }

    package func start() {
        guard setup.concurrency > 0 else { return }
        for endpoint in setup.endpoints {
            do { try setup.deliverer.store.ensureWebhookGroup(endpoint: endpoint.id) } catch {
                // The dispatcher makes the group when it finds it missing.
                Log.warn("webhook_group_failed", ["url": endpoint.redactedURL, "error": "\(error)"])
            }
        }
        let failing = Atomic(false)
        relayThread.start { [self] in
            do {
                try setup.relay.drain(now: setup.deliverer.now) { relayThread.isStopping }
                try setup.relay.refreshBacklog()
                // About every ten minutes.
                if passes.add(1, ordering: .relaxed).newValue % 600 == 1 { try setup.relay.pruneConsumers() }
                if failing.exchange(false, ordering: .relaxed) { Log.info("webhook_relay_back", [:]) }
            } catch {
                if !failing.exchange(true, ordering: .relaxed) {
                    Log.warn("webhook_relay_failed", ["error": "\(error)"])
                }
            }
            return true
        }
        for sender in senders { sender.start() }
        Log.info(
            "webhooks",
            [
                "urls": String(setup.endpoints.count), "concurrency": String(setup.concurrency),
                "consumer": setup.deliverer.consumer,
            ])
    }

    /// Stops the relay, and the senders after at most 2 s for the POSTs in flight.
    package func stop() {
        relayThread.stop()
        for sender in senders { sender.stop() }
    }
}

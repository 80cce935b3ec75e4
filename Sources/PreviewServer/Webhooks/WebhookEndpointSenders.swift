import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewRedis

/// The threads that deliver to one URL in `serve`: a dispatcher that takes deliveries from the
/// URL's consumer group (retries whose backoff is over first, then new ones) only while a
/// sender is free, and `concurrency` senders that POST them, each with its own HTTP client.
/// A slow or dead receiver so holds only its own senders: never a request thread, never
/// another URL's deliveries.
final class WebhookEndpointSenders: @unchecked Sendable {
    // @unchecked: every `var` below is read and written only with `condition` locked.
    private let condition = NSCondition()
    private var queue: [PreviewStore.WebhookDelivery] = []
    private var inFlight: Set<String> = []
    private var stopping = false
    private var running = 0

    let endpoint: WebhookEndpoint
    let deliverer: WebhookDeliverer
    let concurrency: Int
    /// The longest wait between looks at Redis when there is nothing to do.
    let pollSeconds: Double

    init(endpoint: WebhookEndpoint, deliverer: WebhookDeliverer, concurrency: Int, pollSeconds: Double = 1) {
        self.endpoint = endpoint
        self.deliverer = deliverer
        self.concurrency = max(1, concurrency)
        self.pollSeconds = pollSeconds
    }

    func start() {
        condition.withLock { running = concurrency + 1 }
        spawn("webhook-dispatch") { [self] in dispatch() }
        for _ in 0..<concurrency { spawn("webhook-send") { [self] in send() } }
    }

    /// Stops taking deliveries and waits up to `seconds` for the POSTs in flight, so a stalled
    /// receiver cannot hold up a shutdown for its whole attempt timeout. A POST still running
    /// then is abandoned (its thread ends with the process): its delivery stays pending in Redis
    /// and is attempted again after its backoff, like those taken but not attempted.
    func stop(waitingAtMost seconds: Double = 2) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        stopping = true
        condition.broadcast()
        while running > 0, condition.wait(until: deadline) {}
        let abandoned = running
        condition.unlock()
        if abandoned > 0 {
            Log.info("webhook_deliveries_abandoned", ["url": endpoint.redactedURL, "threads": String(abandoned)])
        }
    }

    private func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            body()
            condition.withLock {
                running -= 1
                condition.broadcast()
            }
        }
        thread.name = name
        thread.start()
    }

    private func dispatch() {
        let store = deliverer.store
        var cursor = "-"
        var failing = false
        while true {
            let slots: (free: Int, busy: Set<String>)? = condition.withLock {
                stopping ? nil : (concurrency - inFlight.count, inFlight)
            }
            guard let slots else { return }
            var taken: [PreviewStore.WebhookDelivery] = []
            if slots.free > 0 {
                do {
                    taken = try store.dueWebhookRetries(
                        endpoint: endpoint.id, consumer: deliverer.consumer, policy: deliverer.policy, cursor: &cursor,
                        limit: slots.free, excluding: slots.busy)
                    if taken.count < slots.free {
                        taken += try store.newWebhookDeliveries(
                            endpoint: endpoint.id, consumer: deliverer.consumer, limit: slots.free - taken.count)
                    }
                    if failing { Log.info("webhook_redis_back", ["url": endpoint.redactedURL]) }
                    failing = false
                } catch {
                    // Logged once per outage; the Redis error metrics count each failure.
                    if !failing { Log.warn("webhook_read_failed", ["url": endpoint.redactedURL, "error": "\(error)"]) }
                    failing = true
                }
            }
            condition.lock()
            for delivery in taken where inFlight.insert(delivery.entryId).inserted { queue.append(delivery) }
            if !taken.isEmpty { condition.broadcast() }
            // Nothing to take, or no sender free: wait for a sender to finish, a stop, or the poll.
            if !stopping, taken.isEmpty || inFlight.count >= concurrency {
                _ = condition.wait(until: Date(timeIntervalSinceNow: pollSeconds))
            }
            condition.unlock()
        }
    }

    private func send() {
        let client: HTTPClient
        do { client = try HTTPClient() } catch {
            Log.error("webhook_client_failed", ["error": "\(error)"])
            return
        }
        while true {
            condition.lock()
            while queue.isEmpty, !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            let delivery = queue.removeFirst()
            condition.unlock()
            _ = deliverer.deliver(delivery, client: client)
            condition.withLock {
                inFlight.remove(delivery.entryId)
                condition.broadcast()
            }
        }
    }
}

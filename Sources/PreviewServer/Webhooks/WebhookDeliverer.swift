import PreviewCore
import PreviewHTTPClient
import PreviewRedis

/// One delivery attempt, start to end: POST the signed event, then record the outcome in Redis
/// (acknowledge on 2xx; on a failure leave it pending for a retry after its backoff, or move it
/// to the dead letters once the next attempt would be past its deadline). Shared by serve's
/// worker threads and the sweep job.
struct WebhookDeliverer: Sendable {
    let store: PreviewStore
    /// The signing keys, the current secret first (`WebhookSignature`).
    let keys: [any HMACKey]
    let policy: WebhookRetryPolicy
    /// This process's name in the consumer groups.
    let consumer: String
    let metrics: WebhookMetrics
    package let now: @Sendable () -> Int64

    /// What became of one delivery.
    enum Result: Equatable {
        case delivered
        /// Failed; tried again from `at` on (by any process).
        case retry(at: Int64)
        case deadLettered
        /// The outcome could not be recorded (Redis failed): the delivery stays pending and is
        /// attempted again after its backoff.
        case unrecorded
    }

    /// The request one attempt sends: the event's JSON, signed at `timestamp`.
    static func request(
        for event: WebhookEvent, url: String, attempt: Int64, timestamp: Int64, keys: [any HMACKey],
        timeoutSeconds: Int64
    ) -> HTTPClientRequest {
        let body = event.jsonBody
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        headers.add("User-Agent", "streampreview/\(BuildInfo.version)")
        headers.add(
            WebhookSignature.headerName, WebhookSignature.sign(body: body, timestamp: timestamp, keys: keys).headerValue
        )
        headers.add("StreamPreview-Event-Id", event.id)
        headers.add("StreamPreview-Event-Type", event.type.rawValue)
        headers.add("StreamPreview-Delivery-Attempt", String(attempt))
        var request = HTTPClientRequest(method: "POST", url: url, headers: headers, body: .bytes(body))
        request.timeoutSeconds = Double(timeoutSeconds)
        // The answer's body is not read; a receiver that streams one back is cut off.
        request.maxResponseBodyBytes = 64 * 1024
        return request
    }

    func deliver(_ delivery: PreviewStore.WebhookDelivery, client: HTTPClient) -> Result {
        if delivery.attempts > 1 { metrics.retries.add() }
        guard let event = delivery.event, !delivery.url.isEmpty else {
            return deadLetter(delivery, reason: "unreadable delivery entry")
        }
        guard now() <= delivery.deadline else {
            return deadLetter(delivery, reason: "deadline passed before this attempt")
        }
        let failure: String
        let request = Self.request(
            for: event, url: delivery.url, attempt: delivery.attempts, timestamp: now(), keys: keys,
            timeoutSeconds: policy.attemptTimeoutSeconds)
        do {
            let response = try client.send(request)
            if (200..<300).contains(response.status) {
                metrics.record(.delivered)
                do {
                    try store.acknowledgeWebhook(delivery, now: now())
                    return .delivered
                } catch {
                    Log.warn("webhook_ack_failed", ["event": event.id, "error": "\(error)"])
                    return .unrecorded
                }
            }
            metrics.record(.httpError)
            failure = "HTTP \(response.status)"
        } catch let error as HTTPClientError {
            metrics.record(error.kind == .timeout ? .timeout : .connectionError)
            failure = "\(error.kind): \(error.message)"
        } catch {
            metrics.record(.connectionError)
            failure = "\(error)"
        }
        let endpoint = WebhookEndpoint.redacted(delivery.url)
        switch policy.next(afterAttempts: delivery.attempts, failedAt: now(), deadline: delivery.deadline) {
        case .retry(let at):
            Log.warn(
                "webhook_failed",
                [
                    "event": event.id, "url": endpoint, "attempt": String(delivery.attempts), "error": failure,
                    "retry_at": String(at),
                ])
            return .retry(at: at)
        case .deadLetter:
            return deadLetter(delivery, reason: failure)
        }
    }

    private func deadLetter(_ delivery: PreviewStore.WebhookDelivery, reason: String) -> Result {
        do {
            guard try store.deadLetterWebhook(delivery, consumer: consumer, lastError: reason, now: now()) else {
                return .unrecorded
            }
        } catch {
            Log.warn("webhook_dead_letter_failed", ["entry": delivery.entryId, "error": "\(error)"])
            return .unrecorded
        }
        metrics.deadLetters.add()
        Log.warn(
            "webhook_dead_letter",
            [
                "event": delivery.event?.id ?? "", "endpoint": delivery.endpoint, "attempts": String(delivery.attempts),
                "error": reason,
            ])
        return .deadLettered
    }
}

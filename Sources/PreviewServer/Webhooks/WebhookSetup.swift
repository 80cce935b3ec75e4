import PreviewCore
package import PreviewCrypto
package import PreviewRedis

/// What `serve` and `sweep` build from `WebhookOptions` at start: the endpoints, the signing
/// keys, and the
/// pieces that deliver.
package struct WebhookSetup: Sendable {
    let endpoints: [WebhookEndpoint]
    let relay: WebhookRelay
    let deliverer: WebhookDeliverer
    let concurrency: Int

    /// Nil when no URL is configured.
    /// `secrets` as `WebhookOptions.loadSecrets` read them at start.
    package static func make(
        _ options: WebhookOptions, secrets: [[UInt8]], store: PreviewStore, crypto: OpenSSLCrypto,
        metrics: WebhookMetrics, consumer: String, now: @escaping @Sendable () -> Int64
    ) -> WebhookSetup? {
        guard options.isConfigured, !secrets.isEmpty else { return nil }
        let endpoints = options.urls.map { WebhookEndpoint(url: $0, crypto: crypto) }
        let policy = options.retryPolicy
        return WebhookSetup(
            endpoints: endpoints,
            relay: WebhookRelay(
                store: store, targets: endpoints.map { .init(endpoint: $0.id, url: $0.url) }, policy: policy,
                metrics: metrics),
            deliverer: WebhookDeliverer(
                store: store, keys: secrets.map { crypto.hmacKey($0) }, policy: policy, consumer: consumer,
                metrics: metrics, now: now),
            concurrency: options.concurrency)
    }
}

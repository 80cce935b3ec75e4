public import PreviewCore
import PreviewRedis

/// The webhook options, shared by `serve` and `sweep`: where events are POSTed, the secret they
/// are signed with, and how deliveries are retried.
public struct WebhookOptions: Sendable, Equatable {
    /// Receiver URLs; none turns webhooks off (no events are recorded).
    public var urls: [String] = []
    /// The file of the signing secret(s); required with a URL.
    public var secretFile: String?
    /// The limit of one POST, connect included.
    public var timeoutSeconds: Int64 = 10
    /// How long after its event a delivery is still tried before it is dead-lettered.
    public var maxAgeSeconds: Int64 = 86400
    /// The wait before the first retry; it doubles per attempt up to an hour.
    public var retryDelaySeconds: Int64 = 10
    /// POSTs in flight at once per URL in this process; 0 records events but leaves delivering
    /// to other processes (another replica, or the sweep job).
    public var concurrency = 4
    /// Events of one stream kept for delivery in its outbox while receivers lag; one more drops
    /// the stream's oldest.
    public var backlogPerStream = PreviewStore.defaultWebhookOutboxLimit

    public init() {}

    public var isConfigured: Bool { !urls.isEmpty }

    public var retryPolicy: WebhookRetryPolicy {
        WebhookRetryPolicy(
            firstDelaySeconds: retryDelaySeconds, maxDelaySeconds: max(3600, retryDelaySeconds),
            maxAgeSeconds: maxAgeSeconds, attemptTimeoutSeconds: timeoutSeconds)
    }

    package static let specs = [
        OptionSpec(
            flag: "webhook-url", environment: "STREAMPREVIEW_WEBHOOK_URL",
            help:
                "http(s) URL to POST signed preview.published, preview.replaced and preview.removed events to, repeatable or comma-separated; each URL gets every event, delivered at least once with retries (default: none, no events recorded)",
            repeats: true),
        OptionSpec(
            flag: "webhook-secret-file", environment: "STREAMPREVIEW_WEBHOOK_SECRET_FILE",
            help:
                "file holding the secret webhooks are signed with (StreamPreview-Signature: t=UNIX,v1=HMAC-SHA256 of 't.body'), at least 32 bytes; more lines, each a secret, sign with each while receivers move to a new one; required with --webhook-url"
        ),
        OptionSpec(
            flag: "webhook-timeout", environment: "STREAMPREVIEW_WEBHOOK_TIMEOUT",
            help:
                "seconds one delivery attempt may take, connect included; longer is a failed attempt, retried (default 10)"
        ),
        OptionSpec(
            flag: "webhook-max-age", environment: "STREAMPREVIEW_WEBHOOK_MAX_AGE",
            help:
                "seconds after its event a failing delivery is still retried; then it goes to the dead letters (streampreview webhooks dead) (default 86400)"
        ),
        OptionSpec(
            flag: "webhook-retry-delay", environment: "STREAMPREVIEW_WEBHOOK_RETRY_DELAY",
            help:
                "seconds before the first retry of a failed delivery, doubling per attempt up to 3600, never under --webhook-timeout + 2 (default 10)"
        ),
        OptionSpec(
            flag: "webhook-concurrency", environment: "STREAMPREVIEW_WEBHOOK_CONCURRENCY",
            help:
                "deliveries in flight at once per URL in this process, on threads of their own; 0 records events but leaves delivering to other replicas or the sweep job (default 4)"
        ),
        OptionSpec(
            flag: "webhook-backlog-per-stream", environment: "STREAMPREVIEW_WEBHOOK_BACKLOG_PER_STREAM",
            help:
                "events of one stream kept for delivery while receivers lag, 1 to 100000; an event past it drops that stream's oldest undelivered one (receivers want the newest state; counted in streampreview_webhook_events_dropped_total); each URL's queue holds at most \(PreviewStore.webhookDeliveryWindow) of a stream's deliveries at a time, the rest wait in the stream's own outbox, so one stream's backlog does not delay others (default \(PreviewStore.defaultWebhookOutboxLimit))"
        ),
    ]

    package static func parse(_ options: ParsedOptions) throws(UsageError) -> WebhookOptions {
        var webhooks = WebhookOptions()
        for url in options.all("webhook-url").flatMap({ $0.split(separator: ",").map(String.init) }) {
            let url = url.trimmingSpacesAndTabs()
            guard url.hasPrefix("http://") || url.hasPrefix("https://"), url.count > "https://".count,
                !url.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true })
            else {
                throw UsageError("--webhook-url must be an http:// or https:// URL without spaces, not '\(url)'")
            }
            guard !webhooks.urls.contains(url) else { throw UsageError("--webhook-url \(url) is given twice") }
            webhooks.urls.append(url)
        }
        webhooks.secretFile = options.string("webhook-secret-file")
        if webhooks.isConfigured, webhooks.secretFile == nil {
            throw UsageError("--webhook-url needs --webhook-secret-file: webhooks are never sent unsigned")
        }
        webhooks.timeoutSeconds = try options.int64("webhook-timeout", default: webhooks.timeoutSeconds, range: 1...300)
        webhooks.maxAgeSeconds = try options.int64(
            "webhook-max-age", default: webhooks.maxAgeSeconds, range: 1...(30 * 86400))
        webhooks.retryDelaySeconds = try options.int64(
            "webhook-retry-delay", default: webhooks.retryDelaySeconds, range: 1...86400)
        webhooks.concurrency = Int(
            try options.int64("webhook-concurrency", default: Int64(webhooks.concurrency), range: 0...64))
        webhooks.backlogPerStream = Int(
            try options.int64(
                "webhook-backlog-per-stream", default: Int64(webhooks.backlogPerStream), range: 1...100_000))
        return webhooks
    }

    /// The signing secrets of `secretFile`, read now (at start, so a missing or weak secret
    /// stops the process before it serves): one per line, each at least 32 bytes, the first the
    /// current one; none when no URL is configured. A missing, unreadable, empty or weak file
    /// throws (`config`).
    package func loadSecrets() throws -> [[UInt8]] {
        guard isConfigured else { return [] }
        guard let path = secretFile else {
            throw AppError("--webhook-url needs --webhook-secret-file", exitCode: .usage)
        }
        let text = try SecretFile.read(path, what: "webhook secret file")
        let secrets = text.split(separator: UInt8(ascii: "\n")).map { line in
            Array(String(decoding: line, as: UTF8.self).trimmingSpacesAndTabs().utf8.filter { $0 != 0x0D })
        }.filter { !$0.isEmpty }
        for (index, secret) in secrets.enumerated() where secret.count < 32 {
            throw AppError(
                "the webhook secret file \(path): the secret on line \(index + 1) is under 32 bytes; use a random one",
                exitCode: .config)
        }
        return secrets
    }
}

import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

/// One stream's webhook backlog against a failing receiver: bounded in Redis, counted when
/// dropped, and never queued ahead of other streams' events. Real `serve` on a Redis the test
/// reads, and a `WebhookSink`.
@Suite("Webhooks: one stream's backlog", .serialized)
struct WebhookBacklogTests {
    static let prefix = "bk"
    let keys = RedisKeys(prefix: WebhookBacklogTests.prefix)

    func serve(
        _ redis: RedisServerFixture, _ sink: WebhookSink, _ secret: WebhookDeliveryTests.Secret, _ more: [String],
        retryDelay: Int
    ) throws -> ServiceProcess {
        try ServiceProcess(
            arguments: WebhookDeliveryTests.webhookArguments(
                sink, secret,
                ["--redis", "unix://" + redis.socketPath, "--key-prefix", Self.prefix, "--sweep-interval", "0"] + more,
                retryDelay: retryDelay),
            replicas: 1)
    }

    func length(_ redis: RedisServerFixture, _ key: String) throws -> Int64 {
        try redis.connection().command(["XLEN", key]).int ?? -1
    }

    @Test(
        "2,000 events of one stream waiting on a receiver that stalls on each delay another stream's next event by seconds, not by the backlog"
    )
    func backlogDoesNotDelayOthers() throws {
        let redis = try RedisServerFixture()
        let secret = try WebhookDeliveryTests.Secret()
        let nonce = String(repeating: "ab", count: 14)
        // Each attempt at a backlog event outlasts the 1 s attempt timeout; the rest are accepted.
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { id, _ in
            id.hasPrefix("evt_" + nonce) ? .stall(seconds: 3) : .accept
        }
        defer { sink.stop() }
        // The backlog of a stream committing at its limit while the receiver failed, written
        // straight into its outbox (as by an older version, or before the bound was lowered).
        let now = Int64(Date().timeIntervalSince1970)
        var backlog: [[String]] = (1...2000).map { number in
            [
                "XADD", keys.webhookOutbox(1), "*", "id", "evt_" + nonce + String(format: "%04x", number), "type",
                "preview.published", "createdAt", String(now), "previewVersion", String(number), "uploadId",
                String(format: "%032x", number), "expiresAt", String(now + 600),
            ]
        }
        backlog.append(["ZADD", keys.webhookOutboxes, "0", "1"])
        let written = try redis.connection().pipeline(backlog)
        try #require(written.allSatisfy { if case .error = $0 { false } else { true } })

        let service = try serve(redis, sink, secret, [], retryDelay: 10)
        try #require(eventually(within: 30) { sink.requests >= 4 }, "the backlog is being attempted")
        try SweepSeeder(service).publish(streamId: 2, seed: 2)
        let published = ContinuousClock.now
        let arrived = eventually(within: 60) { sink.events.contains { $0.data.streamId == "2" } }
        print("webhooks backlog: stream 2 after \(ContinuousClock.now - published), requests=\(sink.requests)")
        #expect(arrived, "stream 2's event arrived behind at most a few of stream 1's")

        let deliveries = keys.webhookDeliveries(endpoint: WebhookEndpoint(url: sink.url, crypto: OpenSSLCrypto()).id)
        // Stream 2's own delivery may still be in the queue a moment after it arrived: count stream 1's.
        let queued = try redis.connection().command(["XRANGE", deliveries, "-", "+"]).array ?? []
        let ofStream1 = queued.filter { entry in
            let fields = entry.array?.last?.array?.compactMap(\.string) ?? []
            return stride(from: 0, to: fields.count - 1, by: 2).contains {
                fields[$0] == "streamId" && fields[$0 + 1] == "1"
            }
        }
        #expect((1...8).contains(ofStream1.count), "at most 8 of stream 1 queued for the URL (\(queued.count) in all)")
        #expect(try length(redis, keys.webhookOutbox(1)) >= 1900, "the rest wait in stream 1's own outbox")
    }

    @Test(
        "past --webhook-backlog-per-stream a stream's oldest events are dropped: /metrics counts each once and the log names the stream"
    )
    func dropsAreCounted() throws {
        let redis = try RedisServerFixture()
        let secret = try WebhookDeliveryTests.Secret()
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in .fail(503) }
        defer { sink.stop() }
        // Failed deliveries are retried only after 120 s: the stream's 8 places stay taken.
        let service = try serve(redis, sink, secret, ["--webhook-backlog-per-stream", "2"], retryDelay: 120)
        let seeder = try SweepSeeder(service)
        for seed in 1...12 { try seeder.publish(streamId: 5, seed: seed) }

        let deliveries = keys.webhookDeliveries(endpoint: WebhookEndpoint(url: sink.url, crypto: OpenSSLCrypto()).id)
        let metric = "streampreview_webhook_events_dropped_total"
        // Of the 12 events, what is neither queued for the URL (at most 8) nor waiting in the
        // outbox (at most 2) was dropped: at least 2, each counted once.
        let settled = eventually(within: 30) {
            guard let queued = try? length(redis, deliveries), let waiting = try? length(redis, keys.webhookOutbox(5)),
                let dropped = try? WebhookDeliveryTests.metric(service, metric)
            else { return false }
            return queued <= 8 && waiting <= 2 && dropped >= 2 && Double(queued + waiting) + dropped == 12
        }
        #expect(
            settled,
            "queued \((try? length(redis, deliveries)) ?? -1), waiting \((try? length(redis, keys.webhookOutbox(5))) ?? -1), dropped \((try? WebhookDeliveryTests.metric(service, metric)) ?? -1)"
        )
        let log = (try? String(contentsOfFile: service.stderrPath, encoding: .utf8)) ?? ""
        #expect(log.contains("event=webhook_events_dropped") && log.contains("stream_id=5"), "\(log.suffix(2000))")
    }
}

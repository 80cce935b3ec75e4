import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPClient
import PreviewTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Signed, durable webhooks end to end: real `serve` processes, their Redis, and a loopback
/// receiver (`WebhookSink`) that fails, stalls, checks every signature and drops duplicates by
/// event ID.
@Suite("Webhooks: delivery", .serialized)
struct WebhookDeliveryTests {
    /// A secret file for the service and the same bytes for the sink.
    struct Secret {
        let path: String
        let bytes: [UInt8]

        init() throws {
            let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-whs")
            bytes = Array(Hex.encode((0..<24).map { _ in UInt8.random(in: 0...255) }).utf8)
            path = folder + "/webhook-secret"
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        }
    }

    /// What a test's sink does next, shared with its handler.
    final class Switch: Sendable {
        let value = Atomic<Int>(0)
        let flag = Atomic<Bool>(false)
        let clockShift = Atomic<Int64>(0)
    }

    /// Short attempts and backoff, so failed deliveries come back within seconds.
    static func webhookArguments(
        _ sink: WebhookSink, _ secret: Secret, _ more: [String] = [], retryDelay: Int = 1
    ) -> [String] {
        [
            "--webhook-url", sink.url, "--webhook-secret-file", secret.path, "--webhook-timeout", "1",
            "--webhook-retry-delay", String(retryDelay),
        ] + more
    }

    /// `type stream version reason`, the part of an event a test expects.
    static func summary(_ event: WebhookSink.Event) -> String {
        [event.type, event.data.streamId, event.data.previewVersion, event.data.reason ?? ""].joined(separator: " ")
    }

    /// The sum of one series over every replica's /metrics (each counts what it did).
    static func metric(_ service: ServiceProcess, _ series: String) throws -> Double {
        let client = try HTTPClient()
        var total = 0.0
        for url in service.replicaURLs {
            let text = String(
                decoding: try client.send(HTTPClientRequest(method: "GET", url: url + "/metrics")).body, as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
                total += Double(line.dropFirst(series.count + 1)) ?? 0
            }
        }
        return total
    }

    @Test(
        "every publish, replacement, end, expiry and deleted replaced preview arrives once per ID, signed, though the first two attempts of each fail and one stalls past the timeout; /metrics counts them"
    )
    func everyEventArrives() throws {
        let secret = try Secret()
        let control = Switch()
        let sink = try WebhookSink(
            secret: secret.bytes, crypto: OpenSSLCrypto(),
            clockOffset: { control.clockShift.load(ordering: .relaxed) }
        ) { _, attempt in
            if attempt == 1, !control.flag.exchange(true, ordering: .relaxed) { return .stall(seconds: 4) }
            return attempt <= 2 ? .fail(500) : .accept
        }
        defer { sink.stop() }
        let service = try ServiceProcess(
            arguments: Self.webhookArguments(
                sink, secret, ["--grace", "60", "--preview-ttl", "600", "--sweep-interval", "1"]),
            testClock: true)
        let seeder = try SweepSeeder(service)
        var expected: [String] = []
        for stream: Int64 in 1...6 {
            try seeder.publish(streamId: stream, seed: Int(stream))
            expected.append("preview.published \(stream) 1 ")
        }
        for stream: Int64 in 1...4 {
            try seeder.publish(streamId: stream, seed: 10 + Int(stream))
            expected.append("preview.replaced \(stream) 2 ")
        }
        for stream: Int64 in 1...2 {
            try seeder.end(streamId: stream)
            expected.append("preview.removed \(stream) 2 ended")
        }
        // Past the previews' TTL and the replaced ones' grace: the sweeper expires 3...6 and
        // deletes the objects of the versions replaced in 1...4.
        control.clockShift.store(700, ordering: .relaxed)
        try service.shiftClock(by: 700)
        for stream: Int64 in 3...6 { expected.append("preview.removed \(stream) \(stream <= 4 ? 2 : 1) expired") }
        for stream: Int64 in 1...4 { expected.append("preview.removed \(stream) 1 replaced") }

        let arrived = eventually(within: 120) { sink.events.count >= expected.count }
        let events = sink.events
        print(
            "webhooks: events=\(events.count) requests=\(sink.requests) duplicates=\(sink.duplicates) "
                + "bad_signatures=\(sink.badSignatures)")
        #expect(arrived, "arrived: \(events.map(Self.summary).sorted())")
        #expect(events.map(Self.summary).sorted() == expected.sorted())
        #expect(Set(events.map(\.id)).count == events.count)
        #expect(events.allSatisfy { WebhookEvent.isValidID($0.id) })
        #expect(sink.badSignatures == 0 && sink.unreadable == 0)
        let attempts = sink.attempts
        #expect(events.allSatisfy { (attempts[$0.id] ?? 0) >= 3 }, "each was accepted at its third attempt")
        let replaced = try #require(events.first { $0.type == "preview.replaced" })
        #expect(replaced.data.previousVersion == "1" && replaced.data.previousUploadId?.count == 32)

        #expect(try Self.metric(service, "streampreview_webhook_deliveries_total{outcome=\"delivered\"}") >= 20)
        #expect(try Self.metric(service, "streampreview_webhook_deliveries_total{outcome=\"http_error\"}") >= 39)
        #expect(try Self.metric(service, "streampreview_webhook_deliveries_total{outcome=\"timeout\"}") >= 1)
        #expect(try Self.metric(service, "streampreview_webhook_retries_total") >= 40)
        #expect(try Self.metric(service, "streampreview_webhook_dead_letters_total") == 0)
        #expect(
            eventually(within: 10) { (try? Self.metric(service, "streampreview_webhook_backlog")) == 0 },
            "the backlog gauge drains to 0")
    }

    @Test("kill -9 of the delivering serve mid-delivery loses nothing: a second serve on the same Redis delivers all")
    func killedDelivererLosesNothing() throws {
        let redis = try RedisServerFixture()
        let data = try TestPaths.makeTemporaryDirectory(prefix: "sp-whk")
        defer { try? FileManager.default.removeItem(atPath: data) }
        let secret = try Secret()
        let control = Switch()  // value 0: every attempt stalls; 1: every attempt is accepted
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in
            control.value.load(ordering: .relaxed) == 0 ? .stall(seconds: 2) : .accept
        }
        defer { sink.stop() }
        func serve() throws -> ServiceProcess {
            try ServiceProcess(
                arguments: Self.webhookArguments(
                    sink, secret, ["--redis", "unix://" + redis.socketPath, "--sweep-interval", "0"]),
                dataDirectory: data, replicas: 1)
        }
        let first = try serve()
        let seeder = try SweepSeeder(first)
        for stream: Int64 in 1...10 { try seeder.publish(streamId: stream, seed: Int(stream)) }
        try #require(eventually(within: 20) { sink.requests >= 2 }, "the first serve is delivering")
        first.send(signal: SIGKILL)
        #expect(first.waitForExit(timeout: 10) != nil)
        let requestsBeforeKill = sink.requests
        control.value.store(1, ordering: .relaxed)

        let second = try serve()
        try SweepSeeder(second).publish(streamId: 11, seed: 11)
        let arrived = eventually(within: 60) { sink.events.count >= 11 }
        let events = sink.events
        print(
            "webhooks kill -9: events=\(events.count) requests=\(sink.requests) before_kill=\(requestsBeforeKill) "
                + "duplicates=\(sink.duplicates)")
        #expect(arrived)
        #expect(events.map(Self.summary).sorted() == (1...11).map { "preview.published \($0) 1 " }.sorted())
        #expect(Set(events.map(\.id)).count == events.count, "kept once per ID")
        #expect(sink.badSignatures == 0)
    }

    @Test(
        "a delivery failing past its max age is dead-lettered, listed by 'webhooks dead', and 'webhooks replay' delivers it once"
    )
    func deadLettersAndReplay() throws {
        let secret = try Secret()
        let control = Switch()  // value 0: fail with 503; 1: accept
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in
            control.value.load(ordering: .relaxed) == 0 ? .fail(503) : .accept
        }
        defer { sink.stop() }
        let service = try ServiceProcess(
            // The first attempt fails, and the next could start only after its backoff (120 s), past the max
            // age (60 s, which a loaded machine's first attempt is still well within).
            arguments: Self.webhookArguments(
                sink, secret, ["--webhook-max-age", "60", "--sweep-interval", "0"], retryDelay: 120),
            replicas: 1)
        let api = try APIClient(service)
        try SweepSeeder(service).publish(streamId: 5, seed: 5)
        #expect(
            eventually(within: 30) {
                (try? api.metricValue("streampreview_webhook_dead_letters_total")) == "1"
            }, "dead-lettered")
        #expect(try api.metricValue("streampreview_webhook_deliveries_total{outcome=\"http_error\"}") == "1")
        #expect(
            eventually(within: 10) { (try? api.metricValue("streampreview_webhook_dead_letter_stream_length")) == "1" })

        let listed = try service.run(["webhooks", "dead", "--data-dir", service.dataDirectory])
        #expect(listed.status == 0, "\(listed.stderr)")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 1, "\(listed.stdout)")
        let id = try #require(lines[0].split(separator: " ").first.map(String.init))
        #expect(lines[0].contains("type=preview.published") && lines[0].contains("stream=5"))
        #expect(lines[0].contains("attempts=1") && lines[0].contains("error=\"HTTP 503\""), "\(lines[0])")
        let eventId = try #require(
            lines[0].split(separator: " ").first { $0.hasPrefix("event=") }.map { String($0.dropFirst(6)) })

        control.value.store(1, ordering: .relaxed)
        let replayed = try service.run(["webhooks", "replay", id, "--data-dir", service.dataDirectory])
        #expect(replayed.status == 0, "\(replayed.stdout) \(replayed.stderr)")
        #expect(replayed.stdout.contains("replayed=1 missing=0"))
        #expect(eventually(within: 20) { sink.events.count == 1 })
        #expect(sink.events.first?.id == eventId, "the same event, by ID")
        #expect(try service.run(["webhooks", "dead", "--data-dir", service.dataDirectory]).stdout.isEmpty)
        let again = try service.run(["webhooks", "replay", id, "--data-dir", service.dataDirectory])
        #expect(again.status == 1 && again.stdout.contains("replayed=0 missing=1"), "\(again.stdout)")
    }

    @Test("with --webhook-concurrency 0 serve only records events; 'sweep' with the webhook flags delivers them")
    func sweepJobDelivers() throws {
        let secret = try Secret()
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in .accept }
        defer { sink.stop() }
        let service = try ServiceProcess(
            arguments: Self.webhookArguments(sink, secret, ["--webhook-concurrency", "0", "--sweep-interval", "0"]),
            replicas: 1)
        let seeder = try SweepSeeder(service)
        try seeder.publish(streamId: 3, seed: 3)
        try seeder.end(streamId: 3)
        let api = try APIClient(service)
        #expect(try api.metricValue("streampreview_webhook_relayed_total") == "0")

        let sweep = try service.sweep(Self.webhookArguments(sink, secret))
        #expect(sweep.status == 0, "\(sweep.stdout) \(sweep.stderr)")
        #expect(sweep.stderr.contains("event=webhooks relayed=2 delivered=2 failed=0 dead=0"), "\(sweep.stderr)")
        #expect(sink.events.map(Self.summary).sorted() == ["preview.published 3 1 ", "preview.removed 3 1 ended"])
        #expect(sink.requests == 2)
    }

    @Test("a receiver that stalls holds no request thread, and SIGTERM stops serve cleanly with POSTs in flight")
    func stallingReceiverHoldsNothing() throws {
        let secret = try Secret()
        let sink = try WebhookSink(secret: secret.bytes, crypto: OpenSSLCrypto()) { _, _ in .stall(seconds: 30) }
        defer { sink.stop() }
        let service = try ServiceProcess(
            arguments: [
                "--webhook-url", sink.url, "--webhook-secret-file", secret.path, "--webhook-timeout", "20",
                "--webhook-concurrency", "2", "--sweep-interval", "0",
            ],
            replicas: 1)
        let seeder = try SweepSeeder(service)
        try seeder.publish(streamId: 1, seed: 1)
        try seeder.publish(streamId: 2, seed: 2)
        try #require(eventually(within: 20) { sink.requests >= 2 }, "both senders are stuck in a POST")
        // Each request would wait out the 20 s attempt (past the client's 15 s) if it ran a delivery.
        let started = ContinuousClock.now
        for stream: Int64 in 3...6 { try seeder.publish(streamId: stream, seed: Int(stream)) }
        try seeder.end(streamId: 3)
        #expect(ContinuousClock.now - started < .seconds(10), "answered while the receiver stalls")
        let api = try APIClient(service)
        #expect(try api.feedItems().count == 5)
        let graceful = service.stop()
        #expect(service.exitStatus == 0, "a clean exit, not SIGKILL after 10 s (\(graceful) s)")
    }

    @Test("a webhook URL without a secret file stops serve before it starts (64); a weak secret too (78)")
    func failsClosed() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-whc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = try ServiceProcess.runBinary(
            ["serve", "--port", "0", "--data-dir", folder, "--webhook-url", "http://127.0.0.1:9/h"], timeout: 30)
        #expect(missing.status == 64 && missing.stderr.contains("--webhook-secret-file"), "\(missing.stderr)")
        let weak = folder + "/weak"
        try Data("short".utf8).write(to: URL(fileURLWithPath: weak))
        let refused = try ServiceProcess.runBinary(
            [
                "serve", "--port", "0", "--data-dir", folder, "--webhook-url", "http://127.0.0.1:9/h",
                "--webhook-secret-file", weak,
            ], timeout: 30)
        #expect(refused.status == 78 && refused.stderr.contains("under 32 bytes"), "\(refused.stderr)")
    }
}

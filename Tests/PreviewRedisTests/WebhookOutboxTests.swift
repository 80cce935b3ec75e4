import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// The webhook side of `PreviewStore` against a real redis-server: events written by the scripts
/// that make the changes, the relay into per-URL delivery streams, and the consumer group.
@Suite("Webhook outbox and delivery streams")
struct WebhookOutboxTests {
    struct Injected: Error {}

    let redis: RedisServerFixture
    let store: PreviewStore
    let now: Int64 = 1_800_000_000
    let policy = WebhookRetryPolicy(firstDelaySeconds: 1, maxAgeSeconds: 600, attemptTimeoutSeconds: 1)
    let targets = [
        PreviewStore.WebhookTarget(endpoint: "aaaaaaaaaaaaaaaa", url: "http://127.0.0.1:9/a"),
        PreviewStore.WebhookTarget(endpoint: "bbbbbbbbbbbbbbbb", url: "http://127.0.0.1:9/b"),
    ]

    init() throws {
        redis = try RedisServerFixture()
        store = PreviewStore(pool: redis.pool(maxIdle: 4), keys: RedisKeys(prefix: "wh"), webhookEvents: true)
    }

    func command(_ arguments: [String]) throws -> RedisValue { try redis.connection().command(arguments) }

    /// Records an upload of `stream` and publishes it through `store` at `at`; returns its upload ID.
    @discardableResult
    func publish(
        _ stream: Int64, _ number: Int, at: Int64, through store: PreviewStore? = nil,
        details: PreviewDescription = PreviewDescription()
    ) throws -> String {
        let store = store ?? self.store
        let id = String(format: "%032x", number)
        let spec = UploadSpec.ObjectSpec(type: .mp4, declaredBytes: 10, maxBytes: 10)
        let upload = PendingUpload(
            streamId: stream, uploadId: id, movieKey: "m/\(stream)/\(id)", thumbnailKey: "t/\(stream)/\(id)",
            movie: spec, thumbnail: UploadSpec.ObjectSpec(type: .jpeg, declaredBytes: 5, maxBytes: 5),
            urlExpiresAt: at + 900, commitDeadline: at + 1200)
        #expect(try store.recordUpload(upload, now: at, maxPending: 8) == .recorded)
        let record = PreviewRecord(
            streamId: stream, version: 0, uploadId: id, movieKey: upload.movieKey, thumbnailKey: upload.thumbnailKey,
            movieType: .mp4, thumbnailType: .jpeg, movieBytes: 10, thumbnailBytes: 5, updatedAt: at,
            expiresAt: at + 600, details: details)
        _ = try store.publish(record, retireUntil: at + 60, now: at)
        return id
    }

    /// The stream's outbox entries as events (the relay adds the stream ID the same way).
    func outbox(_ stream: Int64, keys: RedisKeys? = nil) throws -> [WebhookEvent?] {
        let reply = try command(["XRANGE", (keys ?? store.keys).webhookOutbox(stream), "-", "+"])
        return (reply.array ?? []).map { entry in
            var fields: [String: String] = [:]
            let items = entry.array?[1].array ?? []
            for index in stride(from: 0, to: items.count - 1, by: 2) {
                if let name = items[index].string, let value = items[index + 1].string { fields[name] = value }
            }
            fields["streamId"] = String(stream)
            return WebhookEvent(fields: fields)
        }
    }

    @Test("each change writes its event in its own script: a publisher that dies right after still announced it")
    func eventsAreWrittenWithTheChange() throws {
        let dying = PreviewStore(
            pool: redis.pool(maxIdle: 1), keys: store.keys,
            failpoints: PreviewStore.Failpoints(afterPublishScript: { throw Injected() }), webhookEvents: true)
        #expect(throws: Injected.self) { try publish(7, 1, at: now, through: dying) }
        #expect(try command(["ZSCORE", store.keys.webhookOutboxes, "7"]).string == String(now), "indexed first")
        try publish(7, 2, at: now + 10)
        #expect(try store.retire(streamId: 7, retireUntil: now + 80, keepAfterEnd: 60, now: now + 20) == 2)

        let events = try outbox(7)
        try #require(events.count == 3 && events.allSatisfy { $0 != nil }, "\(events)")
        #expect(events.map { $0?.type } == [.published, .replaced, .removed])
        #expect(events.map { $0?.previewVersion } == [1, 2, 2])
        #expect(events.map { $0?.createdAt } == [now, now + 10, now + 20])
        #expect(events[1]?.previousVersion == 1 && events[1]?.previousUploadId == String(format: "%032x", 1))
        #expect(events[1]?.expiresAt == now + 610)
        #expect(events[2]?.reason == .ended && events[2]?.uploadId == String(format: "%032x", 2))
        #expect(Set(events.compactMap { $0?.id }).count == 3, "unique IDs")

        let off = PreviewStore(pool: redis.pool(maxIdle: 1), keys: RedisKeys(prefix: "off"))
        try publish(7, 3, at: now, through: off)
        #expect(try command(["EXISTS", off.keys.webhookOutbox(7), off.keys.webhookOutboxes]).int == 0)
    }

    @Test("published and replaced carry the new version's description; a version without one carries none")
    func eventsCarryTheDescription() throws {
        let said = PreviewDescription(title: "Jam", category: "music", language: "ja", mature: true, altText: "Keys")
        try publish(10, 1, at: now, details: said)
        try publish(10, 2, at: now + 10, details: PreviewDescription(title: "Second"))
        try publish(10, 3, at: now + 20)
        let events = try outbox(10)
        #expect(events.map { $0?.type } == [.published, .replaced, .replaced])
        #expect(events.map { $0?.details } == [said, PreviewDescription(title: "Second"), nil])
        let body = String(decoding: try #require(events[0]).jsonBody, as: UTF8.self)
        #expect(
            body.contains(
                #""details":{"altText":"Keys","category":"music","language":"ja","mature":true,"title":"Jam"}"#),
            "\(body)")
        #expect(!String(decoding: try #require(events[2]).jsonBody, as: UTF8.self).contains("details"))
        #expect(WebhookEvent(fields: Dictionary(uniqueKeysWithValues: try #require(events[0]).fields)) == events[0])
    }

    @Test("a commit over an expired preview the sweeper has not reached announces its expiry, then the publish")
    func commitOverExpiredPreview() throws {
        try publish(8, 1, at: now)
        try publish(8, 2, at: now + 700)
        #expect(try outbox(8).map { $0?.type } == [.published, .removed, .published])
        #expect(try outbox(8)[1]?.reason == .expired)
    }

    @Test("the relay copies each event to every URL's delivery stream, then forgets the outbox and, later, the index")
    func relay() throws {
        try publish(9, 1, at: now)
        try publish(9, 2, at: now + 1)
        let report = try store.relayWebhookOutboxes(
            targets: targets, now: now + 2, limit: 10, settleSeconds: 60, deadline: policy.deadline(createdAt:))
        #expect(report.events == 2 && report.streams == 1 && !report.more)
        for target in targets {
            let entries = try command(["XRANGE", store.keys.webhookDeliveries(endpoint: target.endpoint), "-", "+"])
            #expect(entries.array?.count == 2)
            let fields = entries.array?.first?.array?[1].array?.compactMap(\.string) ?? []
            #expect(fields.contains(target.url) && fields.contains(String(now + 600)), "url and deadline: \(fields)")
        }
        #expect(try command(["EXISTS", store.keys.webhookOutbox(9)]).int == 0, "an emptied outbox is deleted")
        #expect(try command(["ZSCORE", store.keys.webhookOutboxes, "9"]).string != nil, "kept while it settles")
        _ = try store.relayWebhookOutboxes(
            targets: targets, now: now + 62, limit: 10, settleSeconds: 60, deadline: policy.deadline(createdAt:))
        #expect(try command(["ZCARD", store.keys.webhookOutboxes]).int == 0)
        #expect(try command(["ZCARD", store.keys.webhookTouched]).int == 0)

        // Announced (index written first) but its script has not run yet when the relay looks:
        // looked at again 2 s after the announcement, not a minute later.
        _ = try command(["ZADD", store.keys.webhookOutboxes, String(now + 100), "9"])
        _ = try command(["ZADD", store.keys.webhookTouched, String(now + 100), "9"])
        _ = try store.relayWebhookOutboxes(
            targets: targets, now: now + 100, limit: 10, settleSeconds: 60, deadline: policy.deadline(createdAt:))
        #expect(try command(["ZSCORE", store.keys.webhookOutboxes, "9"]).string == String(now + 102))
    }

    @Test("a failed delivery is claimed again only after its backoff; a dead process's deliveries are taken over")
    func retriesAndTakeOver() throws {
        let endpoint = targets[0].endpoint
        try store.ensureWebhookGroup(endpoint: endpoint)
        try store.ensureWebhookGroup(endpoint: endpoint)  // idempotent
        try publish(10, 1, at: now)
        _ = try store.relayWebhookOutboxes(
            targets: targets, now: now, limit: 10, settleSeconds: 60, deadline: policy.deadline(createdAt:))
        let first = try store.newWebhookDeliveries(endpoint: endpoint, consumer: "dead-process", limit: 10)
        try #require(first.count == 1)
        #expect(first[0].attempts == 1 && first[0].event?.type == .published && first[0].url == targets[0].url)

        var cursor = "-"
        #expect(
            try store.dueWebhookRetries(
                endpoint: endpoint, consumer: "other", policy: policy, cursor: &cursor, limit: 10
            ).isEmpty, "not before its backoff (at least the attempt timeout + 2 s)")
        // As if the owner died 2 s and then 3 s ago (XCLAIM ... IDLE sets the idle time).
        for idle in ["2000", "3000"] {
            _ = try command([
                "XCLAIM", store.keys.webhookDeliveries(endpoint: endpoint), RedisKeys.webhookGroup, "dead-process", "0",
                first[0].entryId, "IDLE", idle, "RETRYCOUNT", "1",
            ])
            let taken = try store.dueWebhookRetries(
                endpoint: endpoint, consumer: "other", policy: policy, cursor: &cursor, limit: 10)
            #expect(taken.count == (idle == "3000" ? 1 : 0), "idle \(idle) ms")
            if let delivery = taken.first {
                #expect(delivery.attempts == 2 && delivery.event?.id == first[0].event?.id)
                #expect(try !store.deadLetterWebhook(delivery, consumer: "dead-process", lastError: "x", now: now))
                try store.acknowledgeWebhook(delivery, now: now)
            }
        }
        #expect(try command(["XLEN", store.keys.webhookDeliveries(endpoint: endpoint)]).int == 0, "delivered: deleted")
    }

    @Test("a dead letter keeps the event, is listed, and replays into its delivery stream once")
    func deadLetters() throws {
        let endpoint = targets[1].endpoint
        try store.ensureWebhookGroup(endpoint: endpoint)
        try publish(11, 1, at: now)
        _ = try store.relayWebhookOutboxes(
            targets: targets, now: now, limit: 10, settleSeconds: 60, deadline: policy.deadline(createdAt:))
        let delivery = try #require(try store.newWebhookDeliveries(endpoint: endpoint, consumer: "me", limit: 1).first)
        #expect(try store.deadLetterWebhook(delivery, consumer: "me", lastError: "HTTP 500", now: now + 700))
        #expect(try command(["XLEN", store.keys.webhookDeliveries(endpoint: endpoint)]).int == 0)
        let letters = try store.webhookDeadLetters(limit: 10)
        try #require(letters.count == 1)
        #expect(letters[0].event == delivery.event)
        #expect(letters[0].fields["lastError"] == "HTTP 500" && letters[0].fields["attempts"] == "1")

        #expect(try store.replayDeadLetter(letters[0], deadline: now + 2000))
        #expect(try !store.replayDeadLetter(letters[0], deadline: now + 2000), "once")
        #expect(try store.webhookDeadLetters(limit: 10).isEmpty)
        let again = try #require(try store.newWebhookDeliveries(endpoint: endpoint, consumer: "me", limit: 1).first)
        #expect(again.event == delivery.event && again.deadline == now + 2000 && again.attempts == 1)
    }

    @Test("a replaced preview's removal is announced once both its objects are deleted")
    func replacedObjectsGone() throws {
        let old = try publish(12, 1, at: now)
        try publish(12, 2, at: now + 1)
        try publish(13, 1, at: now)
        try publish(13, 2, at: now + 1)
        func removals(_ stream: Int64) throws -> [WebhookEvent] {
            try outbox(stream).compactMap { $0 }.filter { $0.type == .removed }
        }
        _ = try store.acknowledgeDeletes(
            [PreviewStore.DeleteOutcome(streamId: 12, deleted: ["m/12/\(old)"], failed: ["t/12/\(old)"])],
            now: now + 100, backoffSeconds: 1, maxBackoffSeconds: 10)
        #expect(try removals(12).isEmpty, "the thumbnail is still there")
        _ = try store.acknowledgeDeletes(
            [
                PreviewStore.DeleteOutcome(streamId: 12, deleted: ["t/12/\(old)"], failed: []),
                PreviewStore.DeleteOutcome(streamId: 13, deleted: ["m/13/\(old)", "t/13/\(old)"], failed: []),
            ], now: now + 200, backoffSeconds: 1, maxBackoffSeconds: 10)
        for stream: Int64 in [12, 13] {
            let removed = try removals(stream)
            #expect(removed.count == 1, "stream \(stream): \(removed)")
            #expect(removed.first?.reason == .replaced && removed.first?.previewVersion == 1)
            #expect(removed.first?.uploadId == old && removed.first?.createdAt == now + 200)
            #expect(try command(["EXISTS", store.keys.replacedObjects(stream)]).int == 0, "records forgotten")
        }
    }
}

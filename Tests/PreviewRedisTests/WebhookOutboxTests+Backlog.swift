import PreviewCore
import PreviewRedis
import Testing

/// The bounds on one stream's webhook backlog: its outbox keeps its newest events, and each
/// URL's delivery stream a few of its deliveries at a time, so one stream's backlog neither
/// fills Redis nor queues ahead of other streams' events.
extension WebhookOutboxTests {
    func relay(
        at time: Int64, window: Int, _ targets: [PreviewStore.WebhookTarget], through store: PreviewStore? = nil
    ) throws -> PreviewStore.RelayReport {
        try (store ?? self.store).relayWebhookOutboxes(
            targets: targets, now: time, limit: 10, window: window, settleSeconds: 60,
            deadline: policy.deadline(createdAt:))
    }

    /// The preview versions of the events in one URL's delivery stream, with their stream IDs.
    func queued(_ target: PreviewStore.WebhookTarget) throws -> [String] {
        let reply = try command(["XRANGE", store.keys.webhookDeliveries(endpoint: target.endpoint), "-", "+"])
        return (reply.array ?? []).map { entry in
            let items = entry.array?[1].array?.compactMap(\.string) ?? []
            func field(_ name: String) -> String {
                items.firstIndex(of: name).map { items[$0 + 1] } ?? "?"
            }
            return "\(field("streamId")):\(field("previewVersion"))"
        }
    }

    @Test(
        "an outbox keeps its newest --webhook-backlog-per-stream events: a change past it drops the oldest in its own script, and the relay reports each drop once"
    )
    func outboxIsBounded() throws {
        let bounded = PreviewStore(
            pool: redis.pool(maxIdle: 2), keys: store.keys, webhookEvents: true, webhookOutboxLimit: 3)
        for number in 1...5 { try publish(30, number, at: now + Int64(number), through: bounded) }
        #expect(try outbox(30).map { $0?.previewVersion } == [3, 4, 5], "the two oldest dropped")

        let first = try relay(at: now + 10, window: 1, [targets[0]], through: bounded)
        #expect(first.dropped == [30: 2] && first.deliveries == 1)
        #expect(try queued(targets[0]) == ["30:3"])
        #expect(try outbox(30).map { $0?.previewVersion } == [4, 5], "what every URL has is trimmed")

        for number in 6...7 { try publish(30, number, at: now + 10 + Int64(number), through: bounded) }
        #expect(try outbox(30).map { $0?.previewVersion } == [5, 6, 7])
        let second = try relay(at: now + 20, window: 1, [targets[0]], through: bounded)
        #expect(second.dropped == [30: 1] && second.deliveries == 0, "the window is full; the drop is still told")
        _ = try command(["ZADD", store.keys.webhookOutboxes, String(now + 30), "30"])
        #expect(try relay(at: now + 30, window: 1, [targets[0]], through: bounded).dropped.isEmpty, "told once")
    }

    @Test(
        "a URL's queue holds at most `window` deliveries of a stream; its later events wait in its outbox, not ahead of another stream's, until an answer frees a place"
    )
    func windowPerStream() throws {
        let target = targets[0]
        try store.ensureWebhookGroup(endpoint: target.endpoint)
        for number in 1...5 { try publish(31, number, at: now) }
        try publish(32, 1, at: now)
        let report = try relay(at: now, window: 2, [target])
        #expect(report.deliveries == 3 && report.events == 3 && !report.more, "\(report)")
        #expect(try queued(target) == ["31:1", "31:2", "32:1"])
        #expect(try outbox(31).count == 3)
        #expect(
            try command(["ZSCORE", store.keys.webhookOutboxes, "31"]).string == String(now + 60),
            "waits for an answer, not looked at every second")
        #expect(try relay(at: now, window: 2, [target]).deliveries == 0)

        // Answered one by one, in order: each answer lets the next event in.
        var delivered: [String] = []
        for step in 1...20 {
            let time = now + Int64(step)
            for delivery in try store.newWebhookDeliveries(endpoint: target.endpoint, consumer: "me", limit: 10) {
                delivered.append("\(delivery.event?.streamId ?? 0):\(delivery.event?.previewVersion ?? 0)")
                try store.acknowledgeWebhook(delivery, now: time)
            }
            _ = try relay(at: time, window: 2, [target])
            let queuedNow = try command(["XLEN", store.keys.webhookDeliveries(endpoint: target.endpoint)]).int
            if try command(["EXISTS", store.keys.webhookOutbox(31)]).int == 0, queuedNow == 0 { break }
        }
        #expect(delivered.filter { $0.hasPrefix("31:") } == ["31:1", "31:2", "31:3", "31:4", "31:5"])
        #expect(try command(["EXISTS", store.keys.webhookOutbox(31), store.keys.webhookRelayed(31)]).int == 0)
        #expect(try command(["EXISTS", store.keys.webhookQueued(endpoint: target.endpoint)]).int == 0, "all answered")
    }

    @Test(
        "a URL that never answers holds back no other URL: each is relayed from its own cursor; a dead letter frees its place"
    )
    func urlsMoveApart() throws {
        let (dead, alive) = (targets[0], targets[1])
        for target in targets { try store.ensureWebhookGroup(endpoint: target.endpoint) }
        for number in 1...5 { try publish(33, number, at: now) }
        for step in 0..<10 {
            let time = now + Int64(step)
            _ = try relay(at: time, window: 2, targets)
            for delivery in try store.newWebhookDeliveries(endpoint: alive.endpoint, consumer: "me", limit: 10) {
                try store.acknowledgeWebhook(delivery, now: time)
            }
        }
        #expect(try queued(dead) == ["33:1", "33:2"])
        #expect(try outbox(33).map { $0?.previewVersion } == [3, 4, 5], "kept for the URL that lags")
        #expect(try command(["XLEN", store.keys.webhookDeliveries(endpoint: alive.endpoint)]).int == 0, "all 5 went")

        let stuck = try store.newWebhookDeliveries(endpoint: dead.endpoint, consumer: "me", limit: 10)
        try #require(stuck.count == 2)
        #expect(try store.deadLetterWebhook(stuck[0], consumer: "me", lastError: "HTTP 500", now: now + 20))
        #expect(try command(["HGET", store.keys.webhookQueued(endpoint: dead.endpoint), "33"]).string == "1")
        #expect(try relay(at: now + 20, window: 2, targets).deliveries == 1)
        #expect(try queued(dead) == ["33:2", "33:3"])
        let letter = try #require(try store.webhookDeadLetters(limit: 1).first)
        #expect(try store.replayDeadLetter(letter, deadline: now + 2000))
        #expect(
            try command(["HGET", store.keys.webhookQueued(endpoint: dead.endpoint), "33"]).string == "3",
            "a replayed delivery counts until it is answered")
    }
}

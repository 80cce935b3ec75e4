import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// A resumed event stream is replayed from memory: `preview` events come from the feed's shared
/// snapshot, so the thread that serves connections does no Redis read per event.
@Suite("Event replay")
struct EventReplayTests {
    @Test(
        "1,000 events resumed with Last-Event-ID arrive whole, with no Redis read per preview, while the feed answers")
    func thousandEventsFromTheSnapshot() throws {
        // The snapshot is read once and then only patched, so a read during the replay is the replay's.
        let service = try ServiceProcess(arguments: [
            "--feed-max-age-ms", "600000", "--rate-limit", "write=off,upload=off,commit=off",
        ])
        let api = try APIClient(service)
        let ops = try service.token(sub: "ops", role: "admin")
        let ann = try service.token(sub: "ann", role: "viewer")
        try api.publish(streamId: 1000, token: ops)
        let start = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(try api.send("POST", "/api/streams/1000/like", token: ann).status == 200)
        var opening = try start.next()
        if opening.name == "preview" { opening = try start.next() }  // the publish's, when it came late
        let resumeFrom = try #require(opening.id, "the like's event")
        start.disconnect()

        // 100 commits and 900 likes and unlikes after it: 1,000 events.
        for stream in Int64(1)...100 { try api.publish(streamId: stream, token: ops) }
        for index in 0..<900 {
            // A like, then its unlike: each changes the count, so each is an event.
            let method = index % 2 == 0 ? "POST" : "DELETE"
            #expect(try api.send(method, "/api/streams/\(index / 2 % 100 + 1)/like", token: ann).status == 200)
        }
        #expect(try api.send("GET", "/api/feed").status == 200)

        let redis = RedisProbe(serveDataDirectory: service.dataDirectory)
        try redis.perform(["CONFIG", "RESETSTAT"])
        let feed = FeedPoller(api: try APIClient(service))
        feed.start()
        let resumed = try EventStreamClient(
            service.baseURL + "/api/feed/events", headers: [("Last-Event-ID", resumeFrom)])
        var previews = Set<Int64>()
        var likes = 0
        for _ in 0..<1000 {
            let event = try resumed.next()
            switch event.name {
            case "preview": previews.insert(try FeedItem(json: Array(event.data.utf8)).streamId)
            case "likes": likes += 1
            default: Issue.record("unexpected event \(event)")
            }
        }
        let polled = feed.stop()
        #expect(previews == Set(1...100))
        #expect(likes == 900)
        let stats = try #require(try redis.string(["INFO", "commandstats"]))
        let previewReads = stats.split(separator: "\r\n").first { $0.hasPrefix("cmdstat_hgetall:") }
        #expect(previewReads == nil, "previews read from Redis during the replay: \(previewReads ?? "")")
        #expect(polled.failures.isEmpty, "feed answers during the replay: \(polled.failures)")
        #expect(polled.answered > 0)
    }
}

/// Reads the anonymous feed over and over until stopped.
private final class FeedPoller: @unchecked Sendable {
    private let api: APIClient
    private let state = Mutex<(stopped: Bool, answered: Int, failures: [String])>((false, 0, []))
    private let done = DispatchSemaphore(value: 0)

    /// `api` is used by the poller's thread alone.
    init(api: APIClient) { self.api = api }

    func start() {
        Thread.detachNewThread { [self] in
            while !state.withLock({ $0.stopped }) {
                let outcome = Result { try api.send("GET", "/api/feed").status }
                state.withLock { state in
                    if case .success(200) = outcome { state.answered += 1 } else { state.failures.append("\(outcome)") }
                }
            }
            done.signal()
        }
    }

    func stop() -> (answered: Int, failures: [String]) {
        state.withLock { $0.stopped = true }
        done.wait()
        return state.withLock { ($0.answered, $0.failures) }
    }
}

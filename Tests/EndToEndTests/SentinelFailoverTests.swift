import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// `serve --redis redis-sentinel://...` against real sentinels: the primary is killed under load.
@Suite("Redis Sentinel failover")
struct SentinelFailoverTests {
    /// One API call of the load, timed from the start of the test.
    struct Call: Sendable {
        var kind: Kind
        var started: Double
        var finished: Double
        var status: Int
        var retryAfter: Bool
        enum Kind: String, Sendable { case feed, like, upload, put, commit }
    }

    /// What the load saw, shared by its threads.
    final class Record: Sendable {
        let calls = Mutex<[Call]>([])
        /// Likes answered 200: (viewer, stream, finished).
        let likes = Mutex<[(viewer: String, stream: Int64, at: Double)]>([])
        /// Commits answered 200: (stream, version, finished).
        let commits = Mutex<[(stream: Int64, version: Int64, at: Double)]>([])
        let running = Atomic(true)
        let start = ContinuousClock.now

        var now: Double {
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }

        /// Makes one call and records it; one that got no answer is recorded with status 0.
        func call(_ kind: Call.Kind, _ body: () throws -> Reply) -> Reply? {
            let started = now
            let reply = try? body()
            let call = Call(
                kind: kind, started: started, finished: now, status: reply?.status ?? 0,
                retryAfter: reply?.headers["Retry-After"] != nil)
            calls.withLock { $0.append(call) }
            return reply
        }

        /// A client for one load thread; failing to make one is recorded as a call that got no answer.
        func client(_ service: ServiceProcess, _ kind: Call.Kind) -> APIClient? {
            // Only a call the service never answers counts as unanswered: on a loaded machine an
            // answer during the failover may take longer than the usual 15 s.
            let client = try? APIClient(service, timeoutSeconds: 90)
            if client == nil {
                calls.withLock { $0.append(Call(kind: kind, started: 0, finished: 0, status: 0, retryAfter: false)) }
            }
            return client
        }

        /// Steady load: returns at `next` (then `interval` seconds later on the next call), so a worker sends
        /// at a fixed rate whether its answers are fast 503s or slow commits.
        func pace(_ next: inout Double, interval: Double) {
            next += interval
            let wait = next - now
            if wait > 0 { usleep(UInt32(wait * 1_000_000)) } else { next = now }
        }

        /// The first call of `kind` answered 200 that started after `time`.
        func firstSuccess(_ kinds: Set<Call.Kind>, startedAfter time: Double) -> Call? {
            calls.withLock { calls in
                calls.filter { kinds.contains($0.kind) && $0.started > time && $0.status == 200 }
                    .min { $0.finished < $1.finished }
            }
        }
    }

    static let streams: [Int64] = [11, 12, 13, 14]

    @Test(
        "With the primary killed under load the service finds the new primary through the sentinels without a restart: only 503s meanwhile, no 500, and no acknowledged like or commit is lost"
    )
    func primaryKilledUnderLoad() throws {
        // One replica and --redis-wait-replicas 1: every acknowledged write is on the node the sentinels promote.
        // With more replicas than WAIT counts, the sentinels may promote one that lacks a write, since they rank
        // replicas by the offsets they last read. The promoted node then has no replica to confirm writes until the
        // killed one is back, so the test restarts it, as a supervisor would.
        let group = try SentinelGroupFixture(replicas: 1)
        let service = try ServiceProcess(arguments: [
            "--redis", group.url, "--redis-wait-replicas", "1", "--redis-wait-timeout", "1000",
        ])
        let api = try APIClient(service)
        let streamer = try service.token(sub: "streamer", role: "streamer", streams: Self.streams)
        for stream in Self.streams { try api.publish(streamId: stream, token: streamer) }
        let secret = try service.tokenSecret()

        let record = Record()
        let loads: [@Sendable () -> Void] = [
            { Self.likeLoad(service, record, worker: 0, secret: secret) },
            { Self.likeLoad(service, record, worker: 1, secret: secret) },
            { Self.commitLoad(service, record, token: streamer) },
            { Self.feedLoad(service, record, token: streamer) },
        ]
        let finished = DispatchGroup()
        for load in loads {
            finished.enter()
            Thread.detachNewThread {
                load()
                finished.leave()
            }
        }
        defer {
            record.running.store(false, ordering: .relaxed)
            _ = finished.wait(timeout: .now() + 120)
        }

        #expect(
            eventually(within: 30) {
                record.likes.withLock { $0.count } >= 100 && record.commits.withLock { $0.count } >= 4
            }, "the load runs before the kill")
        let oldPrimary = try #require(group.primaryPort())
        let killedAt = record.now
        group.kill(port: oldPrimary)

        var switchedAt = 0.0
        var newPrimary: Int?
        #expect(
            eventually(within: 30) {
                guard let port = group.primaryPort(), port != oldPrimary else { return false }
                switchedAt = record.now
                newPrimary = port
                return true
            }, "the sentinels promote a replica")
        try group.restartAsReplica(port: oldPrimary, of: try #require(newPrimary))
        #expect(
            eventually(within: 60) {
                record.firstSuccess([.like], startedAfter: killedAt) != nil
                    && record.firstSuccess([.commit], startedAfter: killedAt) != nil
            }, "likes and commits succeed again")
        let recovered = try #require(record.firstSuccess([.like, .upload, .commit], startedAfter: killedAt))
        // A little more load on the new primary, then stop.
        let settle = record.now + 1
        _ = eventually(within: 5) { record.now > settle }
        record.running.store(false, ordering: .relaxed)
        #expect(finished.wait(timeout: .now() + 120) == .success, "the load threads stop")

        let calls = record.calls.withLock { $0 }
        let likes = record.likes.withLock { $0 }
        let commits = record.commits.withLock { $0 }
        let statuses = Dictionary(grouping: calls, by: \.status).mapValues(\.count)
        let unavailable = calls.filter { $0.status == 503 }
        let window = (unavailable.map(\.started).min() ?? 0, unavailable.map(\.finished).max() ?? 0)
        print(
            "sentinel failover: \(calls.count) calls, statuses \(statuses.sorted { $0.key < $1.key }); "
                + "kill -> sentinels switch \(String(format: "%.2f", switchedAt - killedAt)) s; "
                + "switch -> first write succeeded \(String(format: "%.2f", recovered.finished - switchedAt)) s; "
                + "kill -> first write succeeded \(String(format: "%.2f", recovered.finished - killedAt)) s; "
                + "503s \(unavailable.count) (like \(unavailable.filter { $0.kind == .like }.count), "
                + "upload \(unavailable.filter { $0.kind == .upload }.count), "
                + "commit \(unavailable.filter { $0.kind == .commit }.count), "
                + "feed \(unavailable.filter { $0.kind == .feed }.count)) between "
                + "\(String(format: "%.2f", window.0 - killedAt)) s and \(String(format: "%.2f", window.1 - killedAt)) s "
                + "after the kill; \(likes.count) likes and \(commits.count) commits acknowledged, "
                + "\(likes.filter { $0.at < killedAt }.count) likes before the kill")
        #expect(calls.allSatisfy { [200, 503].contains($0.status) }, "only 200 and 503: \(statuses)")
        #expect(statuses[500] == nil, "no 500 at any point")
        #expect(unavailable.allSatisfy { $0.retryAfter }, "every 503 has Retry-After")
        // Measured at 1–3 s on a quiet machine (printed above); the bound is for a loaded one.
        #expect(recovered.finished - switchedAt <= 30, "writes succeed again within 30 s of the switch")
        let resubscribed = eventually(within: 30) {
            let log = (try? String(contentsOfFile: service.stderrPath, encoding: .utf8)) ?? ""
            return log.contains("feed_changes_resubscribed")
        }
        #expect(resubscribed, "the feed-change subscription moves to the new primary")

        // Every acknowledged like and commit is on the new primary. The feed is a snapshot up to a
        // second old (its reload runs after a read past that age), so it is read until it holds
        // every acknowledged like, or 10 s pass.
        let viewer = craftedToken(
            secret: secret, sub: "checker", role: .viewer, issuedAt: unixNow() - 5, expiresAt: unixNow() + 600)
        func holdsEveryWrite(_ feed: [FeedItem]) -> Bool {
            Self.streams.allSatisfy { stream in
                guard let item = feed.first(where: { $0.streamId == stream }) else { return false }
                let likers = Set(likes.filter { $0.stream == stream }.map(\.viewer)).count
                let version = commits.filter { $0.stream == stream }.map(\.version).max() ?? 1
                return item.likes >= Int64(likers) && item.previewVersion >= version
            }
        }
        var feed = try api.feedItems(token: viewer)
        _ = eventually(within: 10) {
            feed = (try? api.feedItems(token: viewer)) ?? feed
            return holdsEveryWrite(feed)
        }
        for stream in Self.streams {
            let item = try #require(feed.first { $0.streamId == stream }, "stream \(stream) is in the feed")
            let likers = Set(likes.filter { $0.stream == stream }.map(\.viewer)).count
            #expect(item.likes >= Int64(likers), "stream \(stream): \(item.likes) likes, \(likers) acknowledged")
            let version = commits.filter { $0.stream == stream }.map(\.version).max() ?? 1
            #expect(item.previewVersion >= version, "stream \(stream): version \(item.previewVersion) < \(version)")
        }
        // `sweep` shares the URL handling: it finds the new primary too.
        let swept = try service.run(["sweep", "--redis", group.url, "--data-dir", service.dataDirectory])
        #expect(swept.status == 0, "sweep through the sentinels: \(swept.stderr)")

        // The likes acknowledged last before the kill are the ones a lagging replica would lose.
        for like in likes.filter({ $0.at < killedAt }).suffix(20) {
            let token = craftedToken(
                secret: secret, sub: like.viewer, role: .viewer, issuedAt: unixNow() - 5, expiresAt: unixNow() + 600)
            let item = try #require(try api.feedItems(token: token).first { $0.streamId == like.stream })
            #expect(item.liked, "\(like.viewer) liked stream \(like.stream) before the kill")
        }
    }

    /// Each like by a new viewer, round robin over the streams.
    static func likeLoad(_ service: ServiceProcess, _ record: Record, worker: Int, secret: String) {
        guard let api = record.client(service, .like) else { return }
        var index = 0
        var next = record.now
        while record.running.load(ordering: .relaxed) {
            record.pace(&next, interval: 0.01)
            index += 1
            let viewer = "viewer-\(worker)-\(index)"
            let stream = streams[index % streams.count]
            let token = craftedToken(
                secret: secret, sub: viewer, role: .viewer, issuedAt: unixNow() - 5, expiresAt: unixNow() + 600)
            let reply = record.call(.like) { try api.send("POST", "/api/streams/\(stream)/like", token: token) }
            if reply?.status == 200 { record.likes.withLock { $0.append((viewer, stream, record.now)) } }
        }
    }

    /// The uploader flow (post, two PUTs, commit) over the streams; a step that fails ends the round.
    static func commitLoad(_ service: ServiceProcess, _ record: Record, token: String) {
        guard let api = record.client(service, .commit) else { return }
        let movie = TestMedia.mp4()
        let thumbnail = TestMedia.jpeg()
        let request = { (stream: Int64) in
            StreamPreviewPostRequest(
                streamId: stream, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
                movieContentType: "video/mp4", thumbnailContentType: "image/jpeg")
        }
        var index = 0
        var next = record.now
        while record.running.load(ordering: .relaxed) {
            record.pace(&next, interval: 0.05)
            index += 1
            let stream = streams[index % streams.count]
            guard let posted = record.call(.upload, { try api.requestUpload(request(stream), token: token) }),
                posted.status == 200, let issued = try? posted.json(StreamPreviewPostResponse.self),
                record.call(.put, { try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie) })?
                    .status == 200,
                record.call(
                    .put,
                    { try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail) })?
                    .status == 200,
                let committed = record.call(
                    .commit, { try api.commit(streamId: stream, uploadId: issued.uploadId, token: token) }),
                committed.status == 200, let item = try? committed.json(FeedItem.self)
            else { continue }
            record.commits.withLock { $0.append((stream, item.previewVersion, record.now)) }
        }
    }

    static func feedLoad(_ service: ServiceProcess, _ record: Record, token: String) {
        guard let api = record.client(service, .feed) else { return }
        var next = record.now
        while record.running.load(ordering: .relaxed) {
            record.pace(&next, interval: 0.01)
            _ = record.call(.feed) { try api.feed(token: token) }
        }
    }
}

import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

/// Two `serve` processes sharing one Redis and one data dir (so one object store): a change
/// made through one is in the other's feed at once, even when the other would not read the
/// live list again for a minute, because the change is announced over Redis pub/sub.
@Suite("Replicas that agree", .serialized)
struct ReplicaAgreementTests {
    let redis: RedisServerFixture
    let data: String

    init() throws {
        redis = try RedisServerFixture()
        data = try TestPaths.makeTemporaryDirectory(prefix: "sp-rep")
    }

    func replica(maxAgeMilliseconds: Int = 60_000) throws -> ServiceProcess {
        try ServiceProcess(
            arguments: [
                "--redis", "unix://" + redis.socketPath, "--feed-max-age-ms", String(maxAgeMilliseconds),
                "--sweep-interval", "0",
            ],
            dataDirectory: data)
    }

    /// Polls `replica`'s feed until `condition` holds; the seconds it took, nil after 10 s.
    func delay(_ replica: APIClient, token: String, until condition: ([FeedItem]) -> Bool) throws -> Double? {
        let started = ContinuousClock.now
        var held = false
        _ = eventually(within: 10) {
            held = ((try? replica.feedItems(token: token)).map(condition)) ?? false
            return held
        }
        guard held else { return nil }
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    @Test("A commit, a like and an end of stream made through A are in B's feed at once; the delays are printed")
    func changesReachTheOtherReplica() throws {
        let a = try replica()
        let b = try replica()
        let apiA = try APIClient(a)
        let apiB = try APIClient(b)
        let streamer = try a.token(sub: "sam", role: "streamer", streams: [7])
        let viewer = try a.token(sub: "vic", role: "viewer")
        #expect(try apiB.feedItems(token: viewer).isEmpty, "B has read (and will keep) an empty live list")

        try apiA.publish(streamId: 7, token: streamer)
        let published = try delay(apiB, token: viewer) { $0.map(\.streamId) == [7] }
        #expect(published != nil, "B shows A's commit")

        #expect(try apiA.send("POST", "/api/streams/7/like", token: viewer).status == 200)
        let liked = try delay(apiB, token: viewer) { $0.first?.likes == 1 && $0.first?.liked == true }
        #expect(liked != nil, "B shows A's like")

        #expect(try apiA.send("DELETE", "/api/preview/7", token: streamer).status == 204)
        let ended = try delay(apiB, token: viewer) { $0.isEmpty }
        #expect(ended != nil, "B drops the stream A ended")
        print(
            "replica delay (poll to poll, s): commit \(published ?? -1), like \(liked ?? -1), end \(ended ?? -1)")
    }

    @Test("A commit, a like and an end of stream made through A reach event streams open on B, and B resumes them")
    func eventsReachTheOtherReplica() throws {
        let a = try replica()
        let b = try replica()
        let apiA = try APIClient(a)
        let streamer = try a.token(sub: "sam", role: "streamer", streams: [9])
        let viewer = try a.token(sub: "vic", role: "viewer")
        let client = try EventStreamClient(b.baseURL + "/api/feed/events")
        try apiA.publish(streamId: 9, token: streamer)
        let preview = try client.next()
        #expect(preview.name == "preview")
        #expect(try FeedItem(json: Array(preview.data.utf8)).streamId == 9)
        client.disconnect()
        #expect(try apiA.send("POST", "/api/streams/9/like", token: viewer).status == 200)
        #expect(try apiA.send("DELETE", "/api/preview/9", token: streamer).status == 204)
        // Resumed on B from the shared log: what A did meanwhile, in order.
        let resumed = try EventStreamClient(
            b.baseURL + "/api/feed/events", headers: [("Last-Event-ID", try #require(preview.id))])
        #expect(try resumed.next().data == #"{"streamId":"9","likes":"1"}"#)
        #expect(try resumed.next().name == "removed")
    }

    @Test("After its subscription is killed, B subscribes again and still hears A's changes")
    func aLostSubscriptionIsRestored() throws {
        let a = try replica()
        let b = try replica()
        let apiA = try APIClient(a)
        let apiB = try APIClient(b)
        let streamer = try a.token(sub: "sam", role: "streamer", streams: [8])
        let viewer = try a.token(sub: "vic", role: "viewer")
        try apiA.publish(streamId: 8, token: streamer)
        #expect(try delay(apiB, token: viewer) { $0.map(\.streamId) == [8] } != nil)

        let killed = try redis.connection().command(["CLIENT", "KILL", "TYPE", "pubsub"])
        #expect((killed.int ?? 0) >= 2, "both replicas' subscriptions were cut")
        #expect(
            eventually(within: 10) {
                ((try? redis.connection().command(["PUBSUB", "NUMSUB", RedisKeys().feedChanges]))?.array?.last?.int
                    ?? 0) == 2
            }, "both subscribe again")
        #expect(try apiA.send("POST", "/api/streams/8/like", token: viewer).status == 200)
        #expect(try delay(apiB, token: viewer) { $0.first?.likes == 1 } != nil, "B hears the like")
    }
}

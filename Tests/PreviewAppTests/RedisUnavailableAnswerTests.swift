import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// How the API answers when Redis cannot serve: 503 `unavailable` with `Retry-After`, never `internal`.
@Suite("Redis unavailable answers")
struct RedisUnavailableAnswerTests {
    static let unavailableReplies = [
        "READONLY You can't write against a read only replica.",
        "LOADING Redis is loading the dataset in memory",
        "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.",
        "TRYAGAIN Multiple keys request during rehashing of slot",
        "CLUSTERDOWN The cluster is down",
    ]

    @Test(
        "a Redis reply saying the node cannot serve now answers 503 unavailable with Retry-After",
        arguments: unavailableReplies)
    func unavailableReplyAnswers503(_ reply: String) throws {
        let app = try AppHarness(
            failpoints: PreviewStore.Failpoints(afterPublishScript: { throw RedisError.reply(reply) }))
        let streamer = app.token("s", .streamer, streams: [3])
        let issued = try app.upload(stream: 3, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let commit = app.send(
            "POST", "/api/preview/commit", token: streamer, json: #"{"streamId":"3","uploadId":"\#(issued.uploadId)"}"#)
        #expect(commit.status == 503, "\(commit.text)")
        #expect(commit.errorCode == "unavailable")
        #expect(commit.headers["Retry-After"] == "1")
    }

    @Test("any other Redis error reply is still an internal error (a bug, not an outage)")
    func otherReplyIsInternal() throws {
        let app = try AppHarness(
            failpoints: PreviewStore.Failpoints(afterPublishScript: {
                throw RedisError.reply("WRONGTYPE Operation against a key holding the wrong kind of value")
            }))
        let streamer = app.token("s", .streamer, streams: [3])
        let issued = try app.upload(stream: 3, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let commit = app.send(
            "POST", "/api/preview/commit", token: streamer, json: #"{"streamId":"3","uploadId":"\#(issued.uploadId)"}"#)
        #expect(commit.status == 500, "\(commit.text)")
    }

    @Test(
        "on a primary demoted to a replica, likes, seen marks, uploads and commits answer 503 and work again once it is primary"
    )
    func demotedPrimaryAnswers503() throws {
        let app = try AppHarness()
        try app.publish(stream: 5)
        let streamer = app.token("s", .streamer, streams: [5])
        let issued = try app.upload(stream: 5, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let viewer = app.token("v", .viewer)
        let admin = try app.redis.connection()
        let nobody = try SentinelGroupFixture.freeLoopbackPorts(count: 1)[0]
        _ = try admin.command(["REPLICAOF", "127.0.0.1", String(nobody)])

        let commitBody = #"{"streamId":"5","uploadId":"\#(issued.uploadId)"}"#
        let writes = [
            app.send("POST", "/api/streams/5/like", token: viewer),
            app.send("DELETE", "/api/streams/5/like", token: viewer),
            app.send("POST", "/api/streams/5/seen", token: viewer),
            app.send("POST", "/api/preview/post", token: streamer, json: #"{"streamId":"5"}"#),
            app.send("POST", "/api/preview/commit", token: streamer, json: commitBody),
        ]
        for response in writes {
            #expect(response.status == 503, "\(response.text)")
            #expect(response.errorCode == "unavailable")
            #expect(response.headers["Retry-After"] == "1")
        }
        #expect(app.context.store.pool.idleCount == 0, "no connection to the demoted node is kept")

        _ = try admin.command(["REPLICAOF", "NO", "ONE"])
        let liked = app.send("POST", "/api/streams/5/like", token: viewer)
        #expect(liked.status == 200, "\(liked.text)")
        let committed = app.send("POST", "/api/preview/commit", token: streamer, json: commitBody)
        #expect(committed.status == 200, "\(committed.text)")
    }

    @Test("with a replica wait configured and no replica to confirm, a write answers 503 with Retry-After")
    func unconfirmedWriteAnswers503() throws {
        let app = try AppHarness(replicaWait: ReplicaWait(replicas: 1, timeoutMilliseconds: 10))
        let streamer = app.token("s", .streamer, streams: [7])
        let posted = app.send("POST", "/api/preview/post", token: streamer, json: #"{"streamId":"7"}"#)
        #expect(posted.status == 503, "\(posted.text)")
        #expect(posted.errorCode == "unavailable")
        #expect(posted.headers["Retry-After"] == "1")
        #expect(app.context.store.pool.idleCount == 1, "a replica shortfall keeps the connection to the primary")
        let like = app.send("POST", "/api/streams/7/like", token: app.token("v", .viewer))
        #expect(like.status == 404, "a like on a stream with no preview writes nothing to wait for: \(like.text)")
    }
}

import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// An external Redis that goes away and comes back.
@Suite("Redis outage")
struct RedisOutageTests {
    @Test("With Redis down the API answers 503 unavailable with Retry-After, and recovers without a restart")
    func outageAndRecovery() throws {
        let redis = try RedisServerFixture()
        let service = try ServiceProcess(arguments: ["--redis", "unix://" + redis.socketPath])
        let api = try APIClient(service)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: [42])
        let viewer = try service.token(sub: "ann", role: "viewer")
        try api.publish(streamId: 42, token: streamer)
        #expect(try api.feedItems(token: viewer).count == 1)
        #expect(service.redisServerPIDs().isEmpty, "no embedded redis-server with --redis")

        redis.killServer()
        // A feed may still be answered from memory for a moment (a snapshot under a second old and
        // the viewer's held history) until the change subscription sees Redis gone and drops what
        // it holds; from then on it needs Redis too.
        let feedNeedsRedis = eventually(within: 30) {
            (try? api.send("GET", "/api/feed", token: viewer).status) == 503
        }
        #expect(feedNeedsRedis, "the feed answers 503 once the subscription is lost")
        let calls: [(String, String, String?)] = [
            ("GET", "/api/feed", nil), ("POST", "/api/preview/post", #"{"streamId":"42"}"#),
            ("POST", "/api/streams/42/like", nil), ("POST", "/api/streams/42/seen", nil),
        ]
        for (method, path, body) in calls {
            let token = path.hasPrefix("/api/preview") ? streamer : viewer
            let reply = try api.send(
                method, path, headers: [("Content-Type", "application/json")], body: body.map { Array($0.utf8) },
                token: token)
            #expect(reply.status == 503, "\(method) \(path)")
            expectError(reply, status: 503, code: "unavailable")
            #expect(reply.headers["Retry-After"] != nil, "\(method) \(path)")
        }
        let ready = try api.send("GET", "/readyz")
        #expect(ready.status == 503)
        #expect(ready.headers["Retry-After"] != nil)
        #expect(try api.send("GET", "/healthz").status == 200)

        try redis.restartServer()
        let recovered = eventually(within: 30) {
            (try? api.send("GET", "/readyz").status) == 200 && (try? api.feed(token: viewer).status) == 200
        }
        #expect(recovered, "requests succeed again once Redis is back")
        // The fixture runs without persistence: the new Redis is empty, and uploads work again.
        #expect(try api.publish(streamId: 42, token: streamer).previewVersion == 1)
        #expect(try api.feedItems(token: viewer).map(\.previewVersion) == [1])
    }
}

import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPServer
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The real server and router against a real redis-server and an S3 endpoint on loopback that
/// stalls: requests that wait on object storage hold workers, never the threads serving reads.
@Suite struct SlowStorageIsolationTests {
    static let secret = "slow-storage-token-secret"

    @Test func withEveryWorkerStuckInACommitOnAStalledStoreHealthFeedLikesAndUploadURLsAreStillAnswered() throws {
        let redis = try RedisServerFixture()
        defer { redis.stop() }
        // The bucket answers nothing until released: every request to it waits inside the store.
        let released = Atomic<Bool>(false)
        let bucket = try RawHTTPServer { request in
            _ = eventually(within: 60) { released.load(ordering: .acquiring) }
            return .respond(RawHTTPServer.response(404, "Not Found", omitBody: request.requestLine.hasPrefix("HEAD ")))
        }
        defer { bucket.stop() }
        let now = Int64(Date().timeIntervalSince1970)
        let context = Self.context(redis: redis, bucketURL: bucket.url)
        var configuration = HTTPServerConfiguration()
        configuration.ioThreads = 1
        configuration.threadPoolSize = 2
        let server = HTTPServer(configuration: configuration, responder: Router(context: context))
        let port = try server.start()
        defer { server.stop() }
        // Declared after stop's defer, so it runs first: stop waits for the stuck commits.
        defer { released.store(true, ordering: .releasing) }

        // Stream 9 is live: its upload is issued through the API and published as commit would
        // once the objects are verified (the store never answers, so commit itself cannot).
        let issued = try Self.issue(port, stream: 9, now: now)
        let pending = try #require(try context.store.uploadAndPreview(streamId: 9, uploadId: issued).0)
        let published = try context.store.publish(
            PreviewRecord(
                streamId: 9, version: 0, uploadId: issued, movieKey: pending.movieKey,
                thumbnailKey: pending.thumbnailKey, movieType: .mp4, thumbnailType: .jpeg, movieBytes: 100,
                thumbnailBytes: 20, updatedAt: now, expiresAt: now + 600),
            retireUntil: now + 3600, now: now)
        var isLive = false
        if case .published = published { isLive = true }
        try #require(isLive, "stream 9 was not published: \(published)")

        // Two commits, one per worker: each worker is then inside the store, waiting on a HEAD.
        var commits: [RawHTTPConnection] = []
        for stream in [1, 2] as [Int64] {
            let streamer = Self.token("streamer-\(stream)", .streamer, streams: [stream], now: now)
            let uploadId = try Self.issue(port, stream: stream, now: now)
            let commit = try RawHTTPConnection(port: port)
            try commit.send(
                Self.request(
                    "POST", "/api/preview/commit", token: streamer,
                    json: #"{"streamId":"\#(stream)","uploadId":"\#(uploadId)"}"#))
            commits.append(commit)
        }
        try #require(eventually { bucket.requests.count == 2 })

        // Both workers are held by the store; with reads on workers these would wait for one,
        // and each read times out after 5 s.
        let viewer = Self.token("viewer-1", .viewer, now: now)
        #expect(try Self.call(port, "GET", "/healthz").status == 200)
        #expect(try Self.call(port, "GET", "/readyz").status == 200)
        let feed = try Self.call(port, "GET", "/api/feed", token: viewer)
        try #require(feed.status == 200)
        #expect(try FeedResponse(json: feed.body).items.map(\.streamId) == [9])
        #expect(try Self.call(port, "POST", "/api/streams/9/like", token: viewer).status == 200)
        #expect(try Self.call(port, "POST", "/api/streams/9/seen", token: viewer).status == 204)
        _ = try Self.issue(port, stream: 3, now: now)
        #expect(bucket.requests.count == 2, "the reads did not touch the store")

        // Released, the store answers 404 to the HEADs: both commits end as a missing object.
        released.store(true, ordering: .releasing)
        for commit in commits {
            let answer = try commit.readResponse()
            #expect(answer.status == 409)
            #expect(String(decoding: answer.body, as: UTF8.self).contains("object_missing"))
        }
    }

    static func context(redis: RedisServerFixture, bucketURL: String) -> AppContext {
        let crypto = OpenSSLCrypto()
        var retry = RemoteObjectClient.Configuration()
        retry.timeoutSeconds = 60  // longer than the stall: the HEADs wait, they do not time out
        let storage = S3Fixture.storage(endpoint: bucketURL, bucket: "bkt", configuration: retry)
        let store = PreviewStore(pool: redis.pool(), keys: RedisKeys(prefix: "slow"))
        return AppContext(
            store: store, storage: storage, localStore: nil, policy: UploadPolicy(), fastStart: .warn,
            authenticator: Authenticator(
                verifier: JWTVerifier(keys: JWTKeySet(defaultKey: Array(secret.utf8)), crypto: crypto)),
            feedCache: AppContext.feedCache(
                store: store, storage: storage, crypto: crypto, maxAgeMilliseconds: 1000, grid: ExpiryGrid()),
            crypto: crypto,
            graceSeconds: ExpiryGrid().lifetime, seenTTL: 3600, publicBaseURL: nil,
            nowMilliseconds: { WallClock.nowMilliseconds() })
    }

    static func token(_ subject: String, _ role: Role, streams: [Int64] = [], now: Int64) -> String {
        JWTSigner(crypto: OpenSSLCrypto()).sign(
            TokenClaims(subject: subject, role: role, streamIds: streams, issuedAt: now, expiresAt: now + 3600),
            key: Array(secret.utf8))
    }

    /// Issues an upload of `stream` through `POST /api/preview/post`; its upload ID.
    static func issue(_ port: UInt16, stream: Int64, now: Int64) throws -> String {
        let streamer = token("streamer-\(stream)", .streamer, streams: [stream], now: now)
        let posted = try call(
            port, "POST", "/api/preview/post", token: streamer,
            json: #"{"streamId":"\#(stream)","movieBytes":100,"thumbnailBytes":20}"#)
        try #require(posted.status == 200, "post: \(String(decoding: posted.body, as: UTF8.self))")
        return try StreamPreviewPostResponse(json: posted.body).uploadId
    }

    static func request(_ method: String, _ path: String, token: String? = nil, json: String? = nil) -> String {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        let body = json ?? ""
        if json != nil { head += "Content-Type: application/json\r\n" }
        return head + "Content-Length: \(body.utf8.count)\r\n\r\n" + body
    }

    /// One request on a fresh connection, answered within 5 s or thrown as a timeout.
    static func call(
        _ port: UInt16, _ method: String, _ path: String, token: String? = nil, json: String? = nil
    ) throws -> RawHTTPConnection.Response {
        let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 5)
        try connection.send(request(method, path, token: token, json: json))
        return try connection.readResponse()
    }
}

import Foundation
import PreviewCore
import PreviewCrypto
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The app wired as `serve` wires it, against a real redis-server, with a clock the test moves.
/// Requests are plain values handed to the router: no sockets.
final class AppHarness {
    let redis: RedisServerFixture
    let directory: String
    let clock = TestClock()
    var context: AppContext
    /// Started when the harness holds viewer histories.
    let listener: FeedChangeListener?
    let router: Router
    let local: LocalObjectStore
    let sweeper: Sweeper
    let secret = "test-token-secret"

    init(
        policy: UploadPolicy = UploadPolicy(), publicBaseURL: String? = nil, fastStart: FastStartPolicy = .warn,
        failpoints: PreviewStore.Failpoints = PreviewStore.Failpoints(), sweep: SweepSettings = SweepSettings(),
        replicaWait: ReplicaWait = ReplicaWait(), viewerCacheEntries: Int = 0, listenerIdleSeconds: Double = 30,
        cors: CORSPolicy? = nil, rateLimits: RateLimits? = nil, trustedProxies: TrustedProxies = TrustedProxies(),
        allowedCodecs: Set<MP4VideoCodec.Family> = [.h264]
    ) throws {
        redis = try RedisServerFixture()
        directory = NSTemporaryDirectory() + "sp-app-\(UUID().uuidString.prefix(8))"
        let crypto = OpenSSLCrypto()
        local = try LocalObjectStore(
            root: directory + "/objects", publicBaseURL: publicBaseURL, secret: "storage-secret", grid: ExpiryGrid(),
            crypto: crypto)
        try local.setBaseURL("http://127.0.0.1:9")
        let store = PreviewStore(
            pool: redis.pool(), keys: RedisKeys(prefix: "t"), replicaWait: replicaWait, failpoints: failpoints)
        let clock = self.clock
        context = AppContext(
            store: store, storage: local, localStore: local, policy: policy, fastStart: fastStart,
            authenticator: Authenticator(
                verifier: JWTVerifier(keys: JWTKeySet(defaultKey: Array(secret.utf8)), crypto: crypto)),
            feedCache: AppContext.feedCache(
                store: store, storage: local, crypto: crypto, maxAgeMilliseconds: 1000, grid: ExpiryGrid()),
            crypto: crypto,
            graceSeconds: ExpiryGrid().lifetime, seenTTL: 3600, publicBaseURL: publicBaseURL,
            nowMilliseconds: { clock.milliseconds })
        context.cors = cors
        context.trustedProxies = trustedProxies
        context.allowedCodecs = allowedCodecs
        if let rateLimits {
            context.rateLimiting = RateLimiting(
                limits: rateLimits, limiter: RateLimiter(client: store.pool, keys: store.keys),
                metrics: context.metrics.rateLimits)
        }
        if viewerCacheEntries > 0 {
            // As serve runs it: held histories hear other processes' changes through the listener.
            context.viewerCache = ViewerHistoryCache(store: store, budget: viewerCacheEntries)
            listener = FeedChangeListener(
                store: store, cache: context.feedCache, viewers: context.viewerCache,
                idleSeconds: listenerIdleSeconds, nowMilliseconds: { clock.milliseconds })
            listener?.start()
        } else {
            listener = nil
        }
        router = Router(context: context)
        sweeper = Sweeper(store: store, storage: local, settings: sweep)
    }

    deinit {
        listener?.stop()
        redis.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    var now: Int64 { clock.milliseconds / 1000 }

    /// One sweeper run at the test clock's time.
    @discardableResult
    func sweep() throws -> Sweeper.Report {
        let clock = self.clock
        return try sweeper.drain(maxSeconds: 60) { clock.milliseconds / 1000 }
    }

    func advance(seconds: Int64) {
        clock.advance(milliseconds: seconds * 1000)
    }

    func token(_ subject: String, _ role: Role, streams: [Int64] = []) -> String {
        JWTSigner(crypto: OpenSSLCrypto()).sign(
            TokenClaims(subject: subject, role: role, streamIds: streams, issuedAt: now, expiresAt: now + 86400),
            key: Array(secret.utf8))
    }

    func send(
        _ method: String, _ target: String, token: String? = nil, json: String? = nil, body: [UInt8]? = nil,
        headers: [(String, String)] = [], from remoteAddress: String = "127.0.0.1"
    ) -> HTTPResponse {
        let parts = target.split(separator: "?", maxSplits: 1)
        var request = HTTPRequest(
            method: method, path: String(parts[0]), rawQuery: parts.count > 1 ? String(parts[1]) : "",
            remoteAddress: remoteAddress)
        if let token { request.headers.add("Authorization", "Bearer \(token)") }
        if let json {
            request.headers.add("Content-Type", "application/json")
            request.body = Array(json.utf8)
        }
        if let body { request.body = body }
        for (name, value) in headers { request.headers.add(name, value) }
        if !request.body.isEmpty, request.headers["Content-Length"] == nil, request.headers["Transfer-Encoding"] == nil
        {
            request.headers.add("Content-Length", String(request.body.count))  // as any HTTP client sends it
        }
        let head = HTTPRequestHead(
            method: method, path: request.path, rawQuery: request.rawQuery, headers: request.headers,
            remoteAddress: remoteAddress)
        switch router.admit(head) {
        case .reject(let response):
            return response
        case .openStream:
            if !request.body.isEmpty {
                request.body = []
                request.bodyTooLarge = true
            }
        case .buffer(let limit, _):
            if request.body.count > limit {
                request.body = []
                request.bodyTooLarge = true
            }
        case .stream(let sink):
            guard request.body.withUnsafeBytes({ sink.write($0) }) else {
                sink.abandon()
                return HTTPResponse(status: 0)  // the server would close the connection unanswered
            }
            request.body = []
            request.bodySink = sink
        }
        return router.respond(to: request)
    }

    /// Issues an upload, PUTs both objects through the local store, and commits.
    @discardableResult
    func publish(
        stream: Int64, movie: [UInt8] = TestClips.mp4, thumbnail: [UInt8] = TestClips.jpeg, extraJSON: String = ""
    ) throws -> FeedItem {
        let streamer = token("streamer-\(stream)", .streamer, streams: [stream])
        let issued = try upload(
            stream: stream, token: streamer, movie: movie, thumbnail: thumbnail, extraJSON: extraJSON)
        let committed = send(
            "POST", "/api/preview/commit", token: streamer,
            json: #"{"streamId":"\#(stream)","uploadId":"\#(issued.uploadId)"}"#)
        try #require(committed.status == 200, "commit: \(committed.text)")
        return try FeedItem(json: committed.bytes)
    }

    /// Asks for upload URLs for a clip and a thumbnail of the given sizes.
    /// `extraJSON`: more members of the request, each with a leading comma.
    func requestUpload(
        stream: Int64, token: String, movieBytes: Int = 100, thumbnailBytes: Int = 10, extraJSON: String = ""
    ) -> HTTPResponse {
        send(
            "POST", "/api/preview/post", token: token,
            json:
                #"{"streamId":"\#(stream)","movieBytes":\#(movieBytes),"thumbnailBytes":\#(thumbnailBytes)\#(extraJSON)}"#
        )
    }

    /// Issues an upload and PUTs both objects, without committing.
    func upload(
        stream: Int64, token: String, movie: [UInt8], thumbnail: [UInt8], extraJSON: String = ""
    ) throws -> StreamPreviewPostResponse {
        let posted = requestUpload(
            stream: stream, token: token, movieBytes: movie.count, thumbnailBytes: thumbnail.count,
            extraJSON: extraJSON)
        try #require(posted.status == 200, "post: \(posted.text)")
        let issued = try StreamPreviewPostResponse(json: posted.bytes)
        for (url, headers, bytes) in [
            (issued.movieBodyUrl, issued.movieHeaders, movie),
            (issued.movieThumbnailBodyUrl, issued.thumbnailHeaders, thumbnail),
        ] {
            let put = send(
                "PUT", pathAndQuery(url), body: bytes,
                headers: headers.map { ($0.key, $0.value) } + [("Host", "127.0.0.1:9")])
            try #require(put.status == 200, "put: \(put.text)")
        }
        return issued
    }

    func feed(token: String? = nil, query: String = "") throws -> [FeedItem] {
        let response = send("GET", "/api/feed" + (query.isEmpty ? "" : "?" + query), token: token)
        try #require(response.status == 200, "feed: \(response.text)")
        return try FeedResponse(json: response.bytes).items
    }

    /// Whether the object of a URL is stored; throws when the store cannot tell (so a negative
    /// check never passes on a failed inspection).
    func objectExists(_ url: String) throws -> Bool {
        let path = pathAndQuery(url).split(separator: "?")[0]
        let key = QueryString.decode(String(path.dropFirst(Route.objectsPrefix.count)), plusIsSpace: false)
        try #require(ObjectKeyPath.isSafe(key), "not an object URL: \(url)")
        return try local.exists(key: key)
    }

    func pathAndQuery(_ url: String) -> String {
        guard let range = url.range(of: "://") else { return url }
        let rest = url[range.upperBound...]
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}

enum TestClips {
    /// A fast-start MP4 (ftyp, moov with a 2 s 320x240 video track, mdat): commit reads its boxes.
    static let mp4: [UInt8] = MP4Clip.make()
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8) + Array(repeating: 1, count: 20)
}

extension HTTPResponse {
    var bytes: [UInt8] {
        if case .bytes(let bytes) = body { return bytes }
        return []
    }

    var text: String { "\(status) " + String(decoding: bytes, as: UTF8.self) }

    var errorCode: String? { (try? ErrorResponse(json: bytes))?.code }
}

/// A clock the test moves by hand.
final class TestClock: Sendable {
    private let value = Mutex<Int64>(1_800_000_000_000)
    var milliseconds: Int64 { value.withLock { $0 } }
    func advance(milliseconds: Int64) { value.withLock { $0 += milliseconds } }
}

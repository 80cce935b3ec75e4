package import PreviewCore
package import PreviewCrypto
package import PreviewRedis

/// Everything the handlers share, built once by `serve`.
package struct AppContext: Sendable {
    let store: PreviewStore
    let storage: any ObjectStorage
    /// The embedded store, when objects are served by this process.
    let localStore: LocalObjectStore?
    let policy: UploadPolicy
    /// What commit does with a clip that is not fast-start (`--fast-start`).
    let fastStart: FastStartPolicy
    let authenticator: Authenticator
    package let feedCache: FeedSnapshotCache
    let crypto: OpenSSLCrypto
    /// How long replaced and ended objects stay fetchable (`--grace`).
    let graceSeconds: Int64
    let seenTTL: Int64
    let publicBaseURL: String?
    package let nowMilliseconds: @Sendable () -> Int64
    /// Set on SIGTERM: readiness turns 503 while requests are still answered.
    package var lifecycle = ServerLifecycle()
    /// What requests, Redis, the object store and the sweeper record, served at `/metrics`.
    var metrics = AppMetrics()
    /// The bearer token that lets any client read `/metrics` (`--metrics-token-file`); nil: none.
    package var metricsToken: [UInt8]?
    /// How long a rendered `/metrics` page is answered again (`--metrics-max-age-ms`).
    package var metricsMaxAgeMilliseconds: Int64 = 1000
    /// The viewer histories held by this process (`--viewer-cache-entries`); nil: each feed asks Redis.
    package var viewerCache: ViewerHistoryCache?
    /// The remote object store's last readiness probe; nil for the embedded store, which is this process.
    package var storageReadiness: StorageReadiness?
    /// The free space the local store's disk keeps (`--min-free-disk-bytes`); nil: not checked.
    package var diskFloor: FreeDiskFloor?
    /// Which browsers on other origins get CORS answers (`--cors-origins`); nil: no CORS at all.
    package var cors: CORSPolicy?
    /// The per-caller limits of `--rate-limit`; nil: no route is limited.
    package var rateLimiting: RateLimiting?
    /// The proxies whose `X-Forwarded-For` names the client (`--trusted-proxies`).
    package var trustedProxies = TrustedProxies()
    /// The live event streams of this process; nil: `GET /api/feed/events` is 404.
    package var feedEvents: FeedEvents?
    /// Whether `GET /` serves the viewer page (`--no-viewer-page`).
    package var servesViewerPage = true
    /// The moderation hook asked before each publish (`--commit-hook-url`); nil: none.
    package var commitHook: CommitHook?
    /// Where feed items' tracking links point (set once the server listens).
    package var serverURL = ServerBaseURL()
    /// The schemes besides https a watch URL may have (`--watch-url-schemes`: apps' deep links).
    package var watchURLSchemes: Set<String> = []
    /// The video codecs commit accepts in a clip (`--allowed-codecs`).
    package var allowedCodecs: Set<MP4VideoCodec.Family> = [.h264]

    package init(
        store: PreviewStore, storage: any ObjectStorage, localStore: LocalObjectStore?, policy: UploadPolicy,
        fastStart: FastStartPolicy, authenticator: Authenticator, feedCache: FeedSnapshotCache, crypto: OpenSSLCrypto,
        graceSeconds: Int64, seenTTL: Int64, publicBaseURL: String?,
        nowMilliseconds: @escaping @Sendable () -> Int64, metrics: AppMetrics = AppMetrics()
    ) {
        self.store = store
        self.storage = storage
        self.localStore = localStore
        self.policy = policy
        self.fastStart = fastStart
        self.authenticator = authenticator
        self.feedCache = feedCache
        self.crypto = crypto
        self.graceSeconds = graceSeconds
        self.seenTTL = seenTTL
        self.publicBaseURL = publicBaseURL
        self.nowMilliseconds = nowMilliseconds
        self.metrics = metrics
    }

    /// The client address of a request when `--trusted-proxies` is set (the peer, or what the
    /// trusted proxies say they forwarded); nil without trusted proxies, when the client is the
    /// peer as the server wrote it, so the common case parses nothing.
    func forwardedClient(peer: String, headers: HTTPHeaders) -> IPAddress? {
        guard !trustedProxies.isEmpty else { return nil }
        return trustedProxies.clientAddress(peer: peer, forwardedFor: headers.values("X-Forwarded-For"))
    }

    package var now: Int64 { nowMilliseconds() / 1000 }

    /// Who a viewer is in the distinct figures: the subject of a valid token, else the client
    /// address as the rate limiter names it (`RateLimiting.caller`).
    func figureViewer(of request: HTTPRequest) -> String {
        if let claims = try? authenticator.optionalCaller(request, now: now) {
            return PreviewStore.figureViewer(subject: claims.subject)
        }
        let client =
            forwardedClient(peer: request.remoteAddress, headers: request.headers) ?? IPAddress(request.remoteAddress)
        return RateLimiting.caller(subject: nil, client: client, peer: request.remoteAddress)
    }

    /// A viewer's whole history when this process holds viewer histories (read and kept now if
    /// need be); nil when only Redis can say (the cache is off, or changes are not heard).
    func viewerHistory(subject: String, nowMilliseconds: Int64) throws -> ViewerHistoryCache.Held? {
        try viewerCache?.history(subject: subject, nowMilliseconds: nowMilliseconds)
    }

    /// The feed item of a live stream for one viewer; URLs minted now.
    func feedItem(_ stream: LiveStream, seen: Bool, liked: Bool, now: Int64) throws -> FeedItem {
        try Self.feedItem(
            stream, seen: seen, liked: liked, storage: storage, serverURL: serverURL,
            previewRefresh: policy.previewRefresh, now: now)
    }

    /// `previewRefresh`: seconds after its commit at which a preview is marked `stale`.
    static func feedItem(
        _ stream: LiveStream, seen: Bool, liked: Bool, storage: any ObjectStorage,
        serverURL: ServerBaseURL = ServerBaseURL(),
        previewRefresh: Int64 = UploadPolicy().previewRefresh, now: Int64
    ) throws -> FeedItem {
        let preview = stream.preview
        let disposition = AttachmentDisposition.value(
            streamId: preview.streamId, version: preview.version, key: preview.movieKey)
        return FeedItem(
            streamId: preview.streamId,
            movieUrl: try preview.movieURL ?? storage.downloadURL(key: preview.movieKey, now: now),
            thumbnailUrl: try preview.thumbnailURL ?? storage.downloadURL(key: preview.thumbnailKey, now: now),
            likes: stream.likes, liked: liked, seen: seen, previewVersion: preview.version,
            updatedAt: preview.updatedAt, expiresAt: preview.expiresAt, durationMs: preview.durationMs,
            width: preview.width, height: preview.height, fastStart: preview.fastStart, labels: preview.labels,
            stale: now >= Self.staleAt(preview, previewRefresh: previewRefresh),
            shareUrl: serverURL.shareURL(streamId: preview.streamId),
            downloadUrl: try storage.downloadURL(key: preview.movieKey, disposition: disposition, now: now),
            codecs: preview.codecs, details: preview.details)
    }

    /// When a preview turns stale: its commit time + the refresh time.
    static func staleAt(_ preview: PreviewRecord, previewRefresh: Int64) -> Int64 {
        preview.updatedAt + previewRefresh
    }

    /// The shared feed snapshot, rendering items as `feedItem` does. A fresh preview's template
    /// is valid until the preview turns stale, so the first snapshot after that renders it again:
    /// the `stale` flag costs the feed requests nothing.
    package static func feedCache(
        store: PreviewStore, storage: any ObjectStorage, crypto: OpenSSLCrypto, maxAgeMilliseconds: Int64,
        grid: ExpiryGrid, serverURL: ServerBaseURL = ServerBaseURL(),
        previewRefresh: Int64 = UploadPolicy().previewRefresh
    ) -> FeedSnapshotCache {
        FeedSnapshotCache(store: store, maxAgeMilliseconds: maxAgeMilliseconds, grid: grid) { stream, now in
            let item = try feedItem(
                stream, seen: false, liked: false, storage: storage, serverURL: serverURL,
                previewRefresh: previewRefresh, now: now)
            let turnsStale = staleAt(stream.preview, previewRefresh: previewRefresh)
            return FeedItemTemplate(item, crypto: crypto, validUntil: item.stale ? .max : turnsStale)
        }
    }

    /// The plain URL of an object on the public base, when one is configured.
    func publicURL(of key: String) -> String? {
        publicBaseURL.map { $0 + "/" + ObjectPath.encode(key) }
    }
}

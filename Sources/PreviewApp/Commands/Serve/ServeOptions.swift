import PreviewCore
import PreviewServer

/// Everything `serve` can be told; the defaults are the embedded, nothing-configured mode.
struct ServeOptions: Sendable, Equatable {
    var host = "127.0.0.1"
    var port: UInt16 = 8080
    var dataDirectory = "./.streampreview"
    /// An existing Redis (`redis://host:port/db`, `unix:///path`, `redis-sentinel://hosts/db#MASTER`, `redis-cluster://hosts`); nil
    /// starts our own.
    var redisURL: String?
    var redisServer = "redis-server"
    /// Replicas that must confirm each acknowledged write (`WAIT`); 0 is off.
    var redisWaitReplicas = 0
    var redisWaitTimeoutMilliseconds = 1000
    /// The base URL clients use to reach this server (for local-store URLs); nil = http://host:port.
    var publicURL: String?
    /// A public/CDN base URL objects are readable at without a signature; nil = signed GET URLs.
    var publicBaseURL: String?
    /// The bearer-token secrets and the longest token lifetime.
    var tokens = TokenSecretOptions()
    /// An identity provider's keys (JWKS), issuer, audience and claim names.
    var identity = IdentityProviderOptions()
    var policy = UploadPolicy()
    /// What commit does with a clip whose `moov` box comes after its media data.
    var fastStart = FastStartPolicy.warn
    var allowedCodecs: Set<MP4VideoCodec.Family> = [.h264]
    /// HTTP I/O threads, which also answer every request that needs only memory and Redis.
    var threads = 8
    /// Threads for requests that may wait on object storage or disk (commit, objects).
    var workerThreads = 8
    /// Connections one client address may hold open at once.
    var maxConnectionsPerIP = 64
    /// Seconds a client has to send a complete request head.
    var headerTimeout: Int64 = 10
    /// Seconds an idle keep-alive connection stays open; also a stalled body's limit.
    var idleTimeout: Int64 = 30
    /// Connections open at once, from all clients.
    var maxConnections = 1024
    /// Seconds an API request has to send its whole body, from its complete head.
    var bodyTimeout: Int64 = 10
    /// Bytes per second an upload body must average over each 20 s; 0 turns the floor off.
    var minUploadRate: Int64 = 4096
    var sweepInterval: Int64 = 30
    /// Seconds between SIGTERM (readiness turns 503) and closing the listener.
    var drainDelay: Int64 = 0
    /// Seconds in-flight requests get to finish once the listener is closed.
    var shutdownTimeout: Int64 = 25
    /// How long replaced and ended objects stay fetchable before they are deleted.
    var graceSeconds: Int64 = ExpiryGrid().lifetime
    var keyPrefix = "sp"
    var seenTTL: Int64 = 7 * 86400
    var feedCacheMilliseconds: Int64 = 1000
    /// Viewer seen/liked entries this process holds (`ViewerHistoryCache`); 0 is off.
    var viewerCacheEntries = 500_000
    var urlGrid = ExpiryGrid()
    /// A separate `HOST:PORT` serving `GET /metrics` (and then not the main port); nil serves
    /// it on the main port.
    var metricsListen: HostPort?
    /// A file holding the bearer token that lets any client scrape `/metrics`; nil: none.
    var metricsTokenFile: String?
    /// Seconds between reads of the gauges that live in Redis (pending uploads, sweeper backlog).
    var metricsRefresh: Int64 = 5
    /// Milliseconds a rendered `/metrics` page is served again before it is rendered anew
    /// (`--metrics-max-age-ms`); 0 renders every scrape.
    var metricsMaxAgeMilliseconds: Int64 = 1000
    /// Where objects live: the embedded local store, or an S3/GCS bucket.
    var storage = StorageOptions()
    /// Free bytes the disk under the local store keeps; below it uploads are refused. 0 is off.
    var minFreeDiskBytes: Int64 = 1 << 30
    /// The origins whose browser pages may call this server (`--cors-origins`); nil: no CORS.
    var cors: CORSPolicy?
    /// Whether `GET /` serves the viewer page (`--no-viewer-page` turns it off).
    var viewerPage = true
    /// Seconds between heartbeats on the event streams (`--events-heartbeat`).
    var eventsHeartbeat: Int64 = 15
    /// About how many events the Redis event log keeps (`--events-history`).
    var eventsHistory = 10_000
    /// Event streams open at once, in all and from one client address (`--max-event-streams`,
    /// `--max-event-streams-per-ip`): apart from `maxConnections`, which they never take.
    var maxEventStreams = 10_000
    var maxEventStreamsPerIP = 64
    /// Per-caller request limits by route class (`--rate-limit`).
    var rateLimits = RateLimits.defaults
    /// Proxies whose `X-Forwarded-For` names the client (`--trusted-proxies`); none by default.
    var trustedProxies = TrustedProxies()
    /// The moderation hook asked before each publish (`--commit-hook-url`); nil: none.
    var commitHook: CommitHookOptions?
    /// Signed webhooks of publishes, replacements and removals (`--webhook-url`); none by default.
    var webhooks = WebhookOptions()
    /// Preview versions' figures and the tracking link's watch URLs.
    var figures = FigureOptions()

    init() {}

    static let specs: [OptionSpec] =
        [
            OptionSpec(
                flag: "host", environment: "STREAMPREVIEW_HOST", help: "address to listen on (default 127.0.0.1)"),
            OptionSpec(
                flag: "port", environment: "STREAMPREVIEW_PORT",
                help: "port to listen on; 0 picks a free one (default 8080)"),
            OptionSpec(
                flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
                help: "embedded Redis, objects and secrets (default ./.streampreview)"),
            OptionSpec(
                flag: "redis", environment: "STREAMPREVIEW_REDIS_URL",
                help:
                    "use this Redis (redis://host:port/db, unix:///path, redis-sentinel://[password@]host:port[,host:port...][/db]#MASTER, or redis-cluster://[password@]host:port[,host:port...] for a cluster) instead of starting one"
            ),
            OptionSpec(
                flag: "redis-server", environment: "STREAMPREVIEW_REDIS_SERVER",
                help: "redis-server executable for the embedded Redis (default redis-server)"),
            OptionSpec(
                flag: "redis-wait-replicas", environment: "STREAMPREVIEW_REDIS_WAIT_REPLICAS",
                help:
                    "replicas that must confirm each upload record, commit, end of stream and like (Redis WAIT) before it is answered; fewer in time is 503 (default 0, off)"
            ),
            OptionSpec(
                flag: "redis-wait-timeout", environment: "STREAMPREVIEW_REDIS_WAIT_TIMEOUT",
                help: "milliseconds WAIT waits for --redis-wait-replicas (default 1000)"),
            OptionSpec(
                flag: "public-url", environment: "STREAMPREVIEW_PUBLIC_URL",
                help: "base URL clients reach this server at (default http://HOST:PORT)"),
            OptionSpec(
                flag: "public-base-url", environment: "STREAMPREVIEW_PUBLIC_BASE_URL",
                help: "public/CDN base URL for plain GET URLs (default: signed GET URLs)"),
        ] + TokenSecretOptions.specs + IdentityProviderOptions.specs + [
            OptionSpec(
                flag: "upload-url-ttl", environment: "STREAMPREVIEW_UPLOAD_URL_TTL",
                help: "seconds the signed PUT URLs work (default 900)"),
            OptionSpec(
                flag: "preview-ttl", environment: "STREAMPREVIEW_PREVIEW_TTL",
                help: "seconds a committed preview stays in the feed (default 600)"),
        ] + ServeOptions.lifetimeSpecs + [
            OptionSpec(
                flag: "max-movie-bytes", environment: "STREAMPREVIEW_MAX_MOVIE_BYTES",
                help: "clip size limit (default 10485760)"),
            OptionSpec(
                flag: "max-thumbnail-bytes", environment: "STREAMPREVIEW_MAX_THUMBNAIL_BYTES",
                help: "thumbnail size limit (default 1048576)"),
            OptionSpec(
                flag: "max-pending-uploads", environment: "STREAMPREVIEW_MAX_PENDING_UPLOADS",
                help: "uploads a stream may have issued and not committed; more is 429 (default 8)"),
            OptionSpec(
                flag: "max-retained-bytes-per-stream", environment: "STREAMPREVIEW_MAX_RETAINED_BYTES_PER_STREAM",
                help:
                    "bytes one stream's objects may hold: issued uploads (their signed sizes), the live preview, replaced ones in their grace; more upload requests are 429 storage_quota_exceeded with Retry-After; 0 is no limit (default 1073741824)"
            ),
            OptionSpec(
                flag: "max-retained-bytes-per-subject", environment: "STREAMPREVIEW_MAX_RETAINED_BYTES_PER_SUBJECT",
                help:
                    "the same bound over all uploads of one token subject (sub), whatever streams they are for; 0 is no limit (default 4294967296)"
            ),
            OptionSpec(
                flag: "min-free-disk-bytes", environment: "STREAMPREVIEW_MIN_FREE_DISK_BYTES",
                help:
                    "local store: free bytes its disk keeps; below it upload requests and object PUTs are 503 insufficient_storage and /readyz is 503 (checked at most once a second); 0 is off (default 1073741824)"
            ),
            OptionSpec(
                flag: "fast-start", environment: "STREAMPREVIEW_FAST_START",
                help:
                    "clips whose moov box follows the media data: require (refuse, 422) or warn (publish with fastStart false) (default warn)"
            ),
            OptionSpec(
                flag: "allowed-codecs", environment: "STREAMPREVIEW_ALLOWED_CODECS",
                help:
                    "video codecs a clip may be in, comma-separated, of h264, hevc, av1 and vp9; any other clip is refused at commit (422 unsupported_codec) (default h264: the one every browser and phone decodes)"
            ),
            OptionSpec(
                flag: "threads", environment: "STREAMPREVIEW_THREADS",
                help:
                    "HTTP threads: they read requests and answer those that need only Redis (feed, likes, upload URLs) (default 8)"
            ),
            OptionSpec(
                flag: "worker-threads", environment: "STREAMPREVIEW_WORKER_THREADS",
                help:
                    "threads for requests that wait on object storage or disk (commit, objects), and as many that write upload bodies to disk (default 8)"
            ),
            OptionSpec(
                flag: "max-connections-per-ip", environment: "STREAMPREVIEW_MAX_CONNECTIONS_PER_IP",
                help: "connections one client address (an IPv6 /64) may hold open at once (default 64)"),
            OptionSpec(
                flag: "header-timeout", environment: "STREAMPREVIEW_HEADER_TIMEOUT",
                help:
                    "seconds a client has to send a whole request head, from connecting or from its request line; trickling bytes does not extend it (default 10)"
            ),
            OptionSpec(
                flag: "idle-timeout", environment: "STREAMPREVIEW_IDLE_TIMEOUT",
                help:
                    "seconds an idle keep-alive connection waits for its next request, and a request body or response may stall (default 30)"
            ),
            OptionSpec(
                flag: "max-connections", environment: "STREAMPREVIEW_MAX_CONNECTIONS",
                help:
                    "connections serving requests open at once from all clients (event streams are counted apart: --max-event-streams); more are refused (default 1024)"
            ),
            OptionSpec(
                flag: "body-timeout", environment: "STREAMPREVIEW_BODY_TIMEOUT",
                help:
                    "seconds an API request has to send its whole body once its head is in; trickling bytes does not extend it (default 10)"
            ),
            OptionSpec(
                flag: "min-upload-rate", environment: "STREAMPREVIEW_MIN_UPLOAD_RATE",
                help:
                    "bytes per second an object upload must average over each 20 s, or its connection is closed; 0 turns it off (default 4096)"
            ),
            OptionSpec(
                flag: "sweep-interval", environment: "STREAMPREVIEW_SWEEP_INTERVAL",
                help:
                    "seconds between the sweeper's runs in this process (each drains what is due; one sweeper acts at a time); 0 turns it off (default 30)"
            ),
            OptionSpec(
                flag: "feed-max-age-ms", environment: "STREAMPREVIEW_FEED_MAX_AGE_MS",
                help:
                    "milliseconds the shared feed snapshot is answered from before the live list is read again; changes made here or announced by other replicas apply at once (default 1000)"
            ),
            OptionSpec(
                flag: "viewer-cache-entries", environment: "STREAMPREVIEW_VIEWER_CACHE_ENTRIES",
                help:
                    "memory for recent viewers' histories, so their feeds need no Redis call, in entries of 32 bytes: one per stream seen or liked, 200 bytes plus the subject's per viewer, and a bit per live stream for a viewer of 64+ streams; changes from other replicas arrive over pub/sub, entries are reread after 60 s, least recently used go first (default 500000, about 16 MB; 0 off)"
            ),
            OptionSpec(
                flag: "drain-delay", environment: "STREAMPREVIEW_DRAIN_DELAY",
                help:
                    "seconds between SIGTERM, which turns /readyz 503, and closing the listener, so a load balancer stops sending first; a second signal skips it (default 0)"
            ),
            OptionSpec(
                flag: "shutdown-timeout", environment: "STREAMPREVIEW_SHUTDOWN_TIMEOUT",
                help:
                    "seconds requests in progress get to finish once the listener is closed; then every connection is closed and serve exits 0 (default 25)"
            ),
            OptionSpec(
                flag: "metrics-listen", environment: "STREAMPREVIEW_METRICS_LISTEN",
                help:
                    "serve GET /metrics on this HOST:PORT only (port 0 picks one), to anyone who reaches it unless --metrics-token-file is set; the main port then answers /metrics with 404 (default: the main port, to clients on this machine not behind a proxy, or with the metrics token)"
            ),
            OptionSpec(
                flag: "metrics-token-file", environment: "STREAMPREVIEW_METRICS_TOKEN_FILE",
                help:
                    "file holding a bearer token (16+ bytes) that lets a scraper read /metrics from any address; on --metrics-listen it is then required (default: none)"
            ),
            OptionSpec(
                flag: "metrics-refresh", environment: "STREAMPREVIEW_METRICS_REFRESH",
                help:
                    "seconds between background reads of the gauges kept in Redis (pending uploads, sweeper queue); a scrape reads only memory (default 5)"
            ),
            OptionSpec(
                flag: "metrics-max-age-ms", environment: "STREAMPREVIEW_METRICS_MAX_AGE_MS",
                help:
                    "milliseconds a rendered /metrics page is answered again before it is rendered anew, so a flood of scrapes costs one render per period (about 1 ms of CPU) instead of one each; 0 renders every scrape (default 1000)"
            ),
            keyPrefixSpec,
            OptionSpec(
                flag: "cors-origins", environment: "STREAMPREVIEW_CORS_ORIGINS",
                help:
                    "comma-separated origins (scheme://host[:port], compared exactly) whose browser pages may call the API and the local store's objects with any method and the bearer token; * lets any origin make anonymous reads (GET and HEAD of /healthz, /readyz, /api/feed without a token, /objects/); preflights are answered without a token, refused ones 403 (default: none, no CORS)"
            ),
            OptionSpec(
                flag: "rate-limit", environment: "STREAMPREVIEW_RATE_LIMIT",
                help:
                    "CLASS=COUNT/PERIOD (write=120/1m; PERIOD in s, m or h) or CLASS=off, repeatable or comma-separated: requests one caller (token sub, else client address, IPv6 by /64) may make per class, shared by all replicas through Redis; over it is 429 rate_limited with Retry-After. Classes: upload (upload URLs), commit, write (likes, seen marks, ends of stream), feed. If Redis cannot be asked, feed is served and the others are 503 (default feed=1200/1m,write=600/1m,upload=120/1m,commit=120/1m)",
                repeats: true),
            OptionSpec(
                flag: "trusted-proxies", environment: "STREAMPREVIEW_TRUSTED_PROXIES",
                help:
                    "CIDRs (10.0.0.0/8, fd00::/8), repeatable or comma-separated: when the peer is one of them, the client address (rate limits, request log) is the right-most X-Forwarded-For entry that is not (default: none; X-Forwarded-For ignored)",
                repeats: true),
        ] + StorageOptions.specs + viewerSpecs + refreshSpecs + commitHookSpecs + webhookSpecs
        + FigureOptions.serveSpecs

    /// Lifetimes the sweeper works with; shared with `sweep`.
    static let lifetimeSpecs = [
        OptionSpec(
            flag: "commit-window", environment: "STREAMPREVIEW_COMMIT_WINDOW",
            help:
                "seconds after the upload URLs expire during which a commit is still accepted; an upload not committed by then is collected (default 300)"
        ),
        OptionSpec(
            flag: "grace", environment: "STREAMPREVIEW_GRACE",
            help:
                "seconds replaced and ended objects stay fetchable before they are deleted (default 3600, the signed GET URL lifetime)"
        ),
    ]

    static let keyPrefixSpec = OptionSpec(
        flag: "key-prefix", environment: "STREAMPREVIEW_KEY_PREFIX", help: "prefix of every Redis key (default sp)")

    static func parse(_ options: ParsedOptions, environment: [String: String] = [:]) throws(UsageError) -> ServeOptions
    {
        var serve = ServeOptions()
        serve.storage = try StorageOptions.parse(options, environment: environment)
        serve.policy.declaredSizes = SignerFactory.declaredSizes(for: serve.storage.backend)
        if let host = options.string("host") { serve.host = host }
        serve.port = UInt16(try options.int64("port", default: Int64(serve.port), range: 0...65535))
        if let dir = options.string("data-dir") { serve.dataDirectory = dir }
        serve.redisURL = options.string("redis")
        if let path = options.string("redis-server") { serve.redisServer = path }
        serve.redisWaitReplicas = Int(try options.int64("redis-wait-replicas", default: 0, range: 0...64))
        serve.redisWaitTimeoutMilliseconds = Int(
            try options.int64("redis-wait-timeout", default: 1000, range: 1...60_000))
        serve.publicURL = try options.string("public-url").map { url throws(UsageError) in
            try OptionValue.baseURL(url, flag: "public-url")
        }
        serve.publicBaseURL = try options.string("public-base-url").map { url throws(UsageError) in
            try OptionValue.baseURL(url, flag: "public-base-url")
        }
        serve.tokens = try TokenSecretOptions.parse(options)
        serve.identity = try IdentityProviderOptions.parse(options)
        serve.policy.uploadURLTTL = try options.int64("upload-url-ttl", default: 900, range: 1...604_800)
        serve.policy.previewTTL = try options.int64("preview-ttl", default: 600, range: 1...31_536_000)
        serve.policy.maxMovieBytes = try options.int64(
            "max-movie-bytes", default: serve.policy.maxMovieBytes, range: 1...(1 << 40))
        serve.policy.maxThumbnailBytes = try options.int64(
            "max-thumbnail-bytes", default: serve.policy.maxThumbnailBytes, range: 1...(1 << 40))
        serve.policy.maxPendingUploads = Int(
            try options.int64(
                "max-pending-uploads", default: Int64(serve.policy.maxPendingUploads), range: 1...10_000))
        serve.policy.maxRetainedBytesPerStream = try options.int64(
            "max-retained-bytes-per-stream", default: serve.policy.maxRetainedBytesPerStream, range: 0...(1 << 50))
        serve.policy.maxRetainedBytesPerSubject = try options.int64(
            "max-retained-bytes-per-subject", default: serve.policy.maxRetainedBytesPerSubject, range: 0...(1 << 50))
        let oneUpload = serve.policy.maxMovieBytes + serve.policy.maxThumbnailBytes
        for (flag, limit) in [
            ("max-retained-bytes-per-stream", serve.policy.maxRetainedBytesPerStream),
            ("max-retained-bytes-per-subject", serve.policy.maxRetainedBytesPerSubject),
        ] where limit > 0 && limit < oneUpload {
            throw UsageError(
                "--\(flag) \(limit) is below one upload of the largest sizes (\(oneUpload) bytes): no upload could be issued"
            )
        }
        serve.minFreeDiskBytes = try options.int64(
            "min-free-disk-bytes", default: serve.minFreeDiskBytes, range: 0...(1 << 60))
        if let mode = options.string("fast-start") {
            guard let policy = FastStartPolicy(rawValue: mode) else {
                throw UsageError("--fast-start must be require or warn, not '\(mode)'")
            }
            serve.fastStart = policy
        }
        if let list = options.string("allowed-codecs") {
            serve.allowedCodecs = try Self.codecFamilies(list)
        }
        serve.threads = Int(try options.int64("threads", default: Int64(serve.threads), range: 1...256))
        serve.workerThreads = Int(
            try options.int64("worker-threads", default: Int64(serve.workerThreads), range: 1...256))
        serve.maxConnectionsPerIP = Int(
            try options.int64("max-connections-per-ip", default: Int64(serve.maxConnectionsPerIP), range: 1...65535))
        serve.headerTimeout = try options.int64("header-timeout", default: serve.headerTimeout, range: 1...3600)
        serve.idleTimeout = try options.int64("idle-timeout", default: serve.idleTimeout, range: 1...86400)
        serve.maxConnections = Int(
            try options.int64("max-connections", default: Int64(serve.maxConnections), range: 1...1_000_000))
        serve.bodyTimeout = try options.int64("body-timeout", default: serve.bodyTimeout, range: 1...3600)
        serve.minUploadRate = try options.int64(
            "min-upload-rate", default: serve.minUploadRate, range: 0...(1 << 30))
        serve.sweepInterval = try options.int64("sweep-interval", default: 30, range: 0...86400)
        serve.feedCacheMilliseconds = try options.int64(
            "feed-max-age-ms", default: serve.feedCacheMilliseconds, range: 1...3_600_000)
        serve.viewerCacheEntries = Int(
            try options.int64(
                "viewer-cache-entries", default: Int64(serve.viewerCacheEntries), range: 0...1_000_000_000))
        serve.drainDelay = try options.int64("drain-delay", default: serve.drainDelay, range: 0...3600)
        serve.shutdownTimeout = try options.int64("shutdown-timeout", default: serve.shutdownTimeout, range: 0...3600)
        serve.policy.commitWindow = try commitWindow(options)
        serve.graceSeconds = try grace(options)
        serve.keyPrefix = try keyPrefix(options)
        serve.metricsListen = try options.string("metrics-listen").map { text throws(UsageError) in
            try hostPort(text, flag: "metrics-listen")
        }
        serve.metricsTokenFile = options.string("metrics-token-file")
        serve.metricsRefresh = try options.int64("metrics-refresh", default: serve.metricsRefresh, range: 1...3600)
        serve.metricsMaxAgeMilliseconds = try options.int64(
            "metrics-max-age-ms", default: serve.metricsMaxAgeMilliseconds, range: 0...60_000)
        if let origins = options.string("cors-origins") {
            switch CORSPolicy.parse(origins) {
            case .success(let policy): serve.cors = policy
            case .failure(let error): throw UsageError("--cors-origins: \(error.message)")
            }
        }
        serve.rateLimits = try rateLimits(options)
        serve.trustedProxies = try trustedProxies(options)
        try parseViewers(options, into: &serve)
        try parseRefresh(options, into: &serve)
        try parseCommitHook(options, into: &serve)
        try parseWebhooks(options, into: &serve)
        serve.figures = try FigureOptions.parse(options)
        return serve
    }

    static func rateLimits(_ options: ParsedOptions) throws(UsageError) -> RateLimits {
        let items = options.all("rate-limit").flatMap { $0.split(separator: ",").map(String.init) }
        switch RateLimits.parse(items) {
        case .success(let limits): return limits
        case .failure(let error): throw UsageError("--rate-limit '\(error.item)': \(error.reason)")
        }
    }

    static func trustedProxies(_ options: ParsedOptions) throws(UsageError) -> TrustedProxies {
        var blocks: [CIDRBlock] = []
        for item in options.all("trusted-proxies").flatMap({ $0.split(separator: ",") }) {
            guard let block = CIDRBlock(item) else {
                throw UsageError("--trusted-proxies '\(item)' is not an IPv4 or IPv6 address or ADDRESS/BITS block")
            }
            blocks.append(block)
        }
        return TrustedProxies(blocks)
    }

    /// `--allowed-codecs h264,hevc`: names of `MP4VideoCodec.Family`, at least one.
    static func codecFamilies(_ list: String) throws(UsageError) -> Set<MP4VideoCodec.Family> {
        let allowable = MP4VideoCodec.Family.allCases.filter { $0 != .other }
        var families: Set<MP4VideoCodec.Family> = []
        for name in list.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = name.trimmingCharacters(in: .whitespaces).lowercased()
            guard let family = MP4VideoCodec.Family(rawValue: trimmed), family != .other else {
                throw UsageError(
                    "--allowed-codecs takes \(allowable.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            families.insert(family)
        }
        return families
    }

    static func commitWindow(_ options: ParsedOptions) throws(UsageError) -> Int64 {
        try options.int64("commit-window", default: UploadPolicy().commitWindow, range: 0...604_800)
    }

    static func grace(_ options: ParsedOptions) throws(UsageError) -> Int64 {
        try options.int64("grace", default: ExpiryGrid().lifetime, range: 0...31_536_000)
    }

    static func keyPrefix(_ options: ParsedOptions) throws(UsageError) -> String {
        guard let prefix = options.string("key-prefix") else { return "sp" }
        guard !prefix.isEmpty, !prefix.contains("{"), !prefix.contains("}") else {
            throw UsageError("--key-prefix must be non-empty and must not contain { or }")
        }
        return prefix
    }

    /// `HOST:PORT`, `[IPV6]:PORT`: the host as the HTTP server takes it, brackets removed.
    static func hostPort(_ text: String, flag: String) throws(UsageError) -> HostPort {
        guard let (host, port) = HostAndPort.split(text), !host.isEmpty, let port = UInt16(exactly: port) else {
            throw UsageError("--\(flag) must be HOST:PORT, not '\(text)'")
        }
        return HostPort(host: host, port: port)
    }
}

/// A listening address given as `HOST:PORT`.
struct HostPort: Sendable, Equatable {
    var host: String
    var port: UInt16
}

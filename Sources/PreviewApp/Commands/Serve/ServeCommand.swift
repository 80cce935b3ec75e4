import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPServer
import PreviewRedis
import PreviewServer

/// `streampreview serve`: Redis (ours or given), the object store, the HTTP API and the sweeper.
enum ServeCommand {
    /// Runs until SIGTERM or SIGINT (blocked in every thread and taken here), or until the
    /// embedded redis-server dies. The embedded Redis runs under `setpriv --pdeathsig KILL`,
    /// so it also goes when this process is killed outright.
    static func run(_ options: ServeOptions) throws -> ExitCode {
        // Everything started below is recorded here and stopped in the reverse order on return.
        let running = StopOrder()
        defer { running.stopAll() }
        // Stopped last: the request lines of the final moments reach stderr.
        running.started("request log") { Log.flushRequests() }
        var signals = ShutdownSignals.block(hangup: options.identity.isConfigured)
        raiseOpenFileLimit()
        let data = try DataDirectory(path: options.dataDirectory)
        let crypto = OpenSSLCrypto()
        // Secrets first: a missing or weak one stops us before anything is started.
        let tokenKeys = try options.tokens.loadKeys(dataDirectory: { data })
        let storageSecret = try localStoreSecret(options.storage, data: data)
        let metricsToken = try options.metricsTokenFile.map(metricsToken(file:))
        let commitHookKeys = try options.commitHook?.loadKeys(crypto: crypto)
        let webhookSecrets = try options.webhooks.loadSecrets()
        options.identity.logWaivedChecks()
        let keyRing = TokenKeyRing(
            JWTVerifier(
                keys: tokenKeys, identity: options.identity.policy, maxLifetime: options.tokens.maxLifetime,
                crypto: crypto),
            crypto: options.identity.isConfigured ? crypto : nil)
        let jwksFile = options.identity.jwksFile.map { JWKSFileSource(path: $0, ring: keyRing) }
        try jwksFile?.loadAtStart()
        jwksFile?.start()
        running.started("jwks file") { jwksFile?.stop() }
        if let jwksFile { signals.onHangup { jwksFile.requestReload() } }
        // Fetched by its own thread, at once and then on schedule: a slow provider does not
        // hold up start, and /readyz is 503 until the first key set arrived.
        let jwksURL = options.identity.jwksURL.map { JWKSURLSource(url: $0, ring: keyRing) }
        jwksURL?.start()
        running.started("jwks url") { jwksURL?.stop() }
        if let jwksURL {
            signals.onHangup { jwksURL.fetchNow() }
            keyRing.onUnknownKeyID { jwksURL.sawUnknownKeyID($0) }
        }

        let embeddedRedis: RedisServerProcess?
        let target: RedisTarget
        if let url = options.redisURL {
            do { target = try RedisTarget.parse(url) } catch {
                throw AppError("--redis: \(error)", exitCode: .usage)
            }
            embeddedRedis = nil
        } else {
            do {
                let process = try RedisServerProcess.start(
                    directory: data.redisDirectory, executable: options.redisServer)
                embeddedRedis = process
                target = .server(process.endpoint)
                Log.info("redis_started", ["socket": process.socketPath, "pid": String(process.pid)])
            } catch {
                throw AppError("\(error)", exitCode: .unavailable)
            }
        }
        running.started("embedded redis") { embeddedRedis?.stop() }

        // Every HTTP thread and worker may hold a Redis connection (per node of a cluster) at once.
        let metrics = AppMetrics()
        let redis = target.client(maxIdle: options.threads + options.workerThreads + 2)
        running.started("redis client") { logClusterRedirects(redis) }
        let store = PreviewStore(
            client: redis, keys: RedisKeys(prefix: options.keyPrefix),
            replicaWait: ReplicaWait(
                replicas: options.redisWaitReplicas, timeoutMilliseconds: options.redisWaitTimeoutMilliseconds),
            eventLogLength: options.eventsHistory, webhookEvents: options.webhooks.isConfigured,
            webhookOutboxLimit: options.webhooks.backlogPerStream, figures: options.figures.settings)
        let (storage, localStore) = try objectStorage(
            options.storage, data: data, secret: storageSecret, publicBaseURL: options.publicBaseURL,
            grid: options.urlGrid,
            crypto: crypto, metrics: metrics.storage,
            // Only workers wait on the bucket (commit); the HTTP threads only sign URLs.
            clients: options.workerThreads + 2)
        let serverURL = ServerBaseURL()
        var context = AppContext(
            store: store, storage: storage, localStore: localStore, policy: options.policy,
            fastStart: options.fastStart,
            authenticator: Authenticator(keyRing: keyRing),
            feedCache: AppContext.feedCache(
                store: store, storage: storage, crypto: crypto, maxAgeMilliseconds: options.feedCacheMilliseconds,
                grid: options.urlGrid, serverURL: serverURL, previewRefresh: options.policy.previewRefresh
            ),
            crypto: crypto, graceSeconds: options.graceSeconds, seenTTL: options.seenTTL,
            publicBaseURL: options.publicBaseURL, nowMilliseconds: { WallClock.nowMilliseconds() }, metrics: metrics)
        context.metricsToken = metricsToken
        context.metricsMaxAgeMilliseconds = options.metricsMaxAgeMilliseconds
        context.cors = options.cors
        context.trustedProxies = options.trustedProxies
        context.allowedCodecs = options.allowedCodecs
        context.commitHook = options.commitHook?.makeHook(
            keys: commitHookKeys ?? [], storage: storage, workerThreads: options.workerThreads,
            metrics: metrics.commitHook)
        if !options.rateLimits.policies.isEmpty {
            context.rateLimiting = RateLimiting(
                limits: options.rateLimits, limiter: RateLimiter(client: redis, keys: store.keys),
                metrics: metrics.rateLimits)
        }
        if options.viewerCacheEntries > 0 {
            context.viewerCache = ViewerHistoryCache(store: store, budget: options.viewerCacheEntries)
        }

        if localStore == nil {
            let readiness = StorageReadiness(storage: storage)
            readiness.start()
            context.storageReadiness = readiness
        }
        running.started("storage readiness") { [readiness = context.storageReadiness] in readiness?.stop() }
        if let localStore, options.minFreeDiskBytes > 0 {
            context.diskFloor = FreeDiskFloor(path: localStore.root, minimumFree: options.minFreeDiskBytes)
        }

        var eventSettings = FeedEvents.Settings()
        eventSettings.heartbeatSeconds = Double(options.eventsHeartbeat)
        let events = FeedEvents.serving(context, settings: eventSettings)
        context.feedEvents = events
        context.servesViewerPage = options.viewerPage
        context.watchURLSchemes = options.figures.watchURLSchemes
        context.serverURL = serverURL
        events.start()
        running.started("event streams") { events.stop() }
        let changes = FeedChangeListener(
            store: store, cache: context.feedCache, viewers: context.viewerCache, events: events,
            nowMilliseconds: context.nowMilliseconds)
        changes.start()
        running.started("change listener") { changes.stop() }
        metrics.redisGauges.start(
            store: store, policy: options.policy, interval: Double(options.metricsRefresh),
            nowMilliseconds: context.nowMilliseconds)
        running.started("redis gauges") { metrics.redisGauges.stop() }

        var configuration = HTTPServerConfiguration()
        configuration.host = options.host
        configuration.port = options.port
        configuration.ioThreads = options.threads
        configuration.threadPoolSize = options.workerThreads
        configuration.maxConnectionsPerAddress = options.maxConnectionsPerIP
        configuration.headerTimeoutSeconds = Int(options.headerTimeout)
        configuration.idleTimeoutSeconds = Int(options.idleTimeout)
        configuration.connectionLimit = options.maxConnections
        configuration.maxStreams = Self.eventStreamSlots(options)
        configuration.maxStreamsPerAddress = options.maxEventStreamsPerIP
        configuration.bodyTimeoutSeconds = Int(options.bodyTimeout)
        configuration.minimumStreamedBodyBytesPerSecond = Int(options.minUploadRate)
        configuration.shutdownTimeoutSeconds = Int(options.shutdownTimeout)
        // Started first, so it is stopped last: scrapes work while the main port drains.
        let metricsServer = try options.metricsListen.map { address in
            try startMetricsServer(address, configuration: configuration, context: context)
        }
        running.started("metrics listener") { metricsServer?.server.stop() }
        var sweep = SweepSettings()
        sweep.graceSeconds = options.graceSeconds
        sweep.keepAfterEndSeconds = options.seenTTL
        let sweeper = SweeperLoop(
            sweeper: Sweeper(store: store, storage: storage, settings: sweep), interval: options.sweepInterval,
            metrics: metrics.sweeper)
        // Recorded before the listener, so stopped after it: on shutdown the listener closes and
        // requests finish first, then the sweeper ends its batch (stopping a loop that never
        // started returns at once).
        running.started("sweeper") { sweeper.stop() }
        // Its own threads, stopped after the listener like the sweeper (POSTs in flight finish).
        let webhooks = WebhookSetup.make(
            options.webhooks, secrets: webhookSecrets, store: store, crypto: crypto, metrics: metrics.webhooks,
            consumer: store.origin, now: WallClock.now
        ).map { WebhookWorker(setup: $0) }
        running.started("webhook delivery") { webhooks?.stop() }
        let server = HTTPServer(
            configuration: configuration,
            responder: Router(context: context, servesMetrics: options.metricsListen == nil))
        let port: UInt16
        do { port = try server.start() } catch { throw AppError("cannot listen: \(error)", exitCode: .unavailable) }
        running.started("listener") { server.stop() }
        metrics.countConnections { server.openConnections + (metricsServer?.server.openConnections ?? 0) }
        let baseURL = options.publicURL ?? "http://\(clientHost(options.host)):\(port)"
        try localStore?.setBaseURL(baseURL)
        serverURL.set(baseURL)
        sweeper.start()
        webhooks?.start()

        if let file = WallClock.testClockFile {
            if WallClock.isShifted {
                Log.warn("test_clock", ["file": file, "now": String(WallClock.now())])
            } else {
                Log.warn("test_clock_ignored", ["reason": "release build", "variable": WallClock.testClockVariable])
            }
        }
        if let metricsServer {
            let address = HostAndPort.format(host: metricsServer.host, port: Int(metricsServer.port))
            print("metrics on http://\(address)/metrics")
        }
        print("listening on http://\(HostAndPort.format(host: options.host, port: Int(port)))")
        _ = fflush(nil)  // ignored result: a closed stdout only loses the line, which serve does not need
        Log.info(
            "ready",
            [
                "port": String(port), "base_url": baseURL, "data_dir": data.path,
                "storage": options.storage.backend.rawValue, "bucket": options.storage.bucket ?? "",
            ])
        let reason = signals.wait(whileAlive: embeddedRedis)
        Log.info("stopping", ["reason": reason.description])
        if case .signal = reason {
            // Readiness turns 503 at once; after the delay the parts stop (`running`): the listener
            // closes and in-flight requests get --shutdown-timeout, then the sweeper stops
            // (within one slice of deletes), then Redis stops.
            context.lifecycle.startDraining()
            Log.info(
                "draining",
                ["delay_seconds": String(options.drainDelay), "shutdown_timeout": String(options.shutdownTimeout)])
            _ = signals.wait(seconds: options.drainDelay, whileAlive: embeddedRedis)
        }
        // A dead embedded Redis is a failure, so a supervisor restarts us; a signal is a clean stop.
        return reason == .redisExited ? .unavailable : .ok
    }

    /// `--max-event-streams`, lowered to what the descriptor limit (raised to its hard limit
    /// first) leaves beside `--max-connections`, with a warning when it is.
    static func eventStreamSlots(_ options: ServeOptions) -> Int {
        guard let limit = DescriptorLimit.raiseToHard() else { return options.maxEventStreams }
        let fitting = DescriptorLimit.eventStreams(
            wanted: options.maxEventStreams, connections: options.maxConnections, limit: limit)
        if fitting < options.maxEventStreams {
            Log.warn(
                "event_streams_lowered",
                [
                    "max_event_streams": String(fitting), "wanted": String(options.maxEventStreams),
                    "open_file_limit": String(limit),
                    "advice": "raise the hard open file limit (LimitNOFILE=, ulimit -Hn) or lower --max-connections",
                ])
        }
        return fitting
    }

    /// The listener of `--metrics-listen`: one I/O thread, a small worker pool, the main
    /// server's deadlines.
    static func startMetricsServer(
        _ address: HostPort, configuration main: HTTPServerConfiguration, context: AppContext
    ) throws -> (server: HTTPServer, host: String, port: UInt16) {
        var configuration = main
        configuration.host = address.host
        configuration.port = address.port
        configuration.ioThreads = 1
        configuration.threadPoolSize = 1
        configuration.maxStreams = 0
        let server = HTTPServer(
            configuration: configuration,
            responder: MetricsResponder(handler: MetricsHandler(context: context, dedicatedListener: true)))
        do {
            return (server, address.host, try server.start())
        } catch {
            throw AppError("cannot listen for metrics: \(error)", exitCode: .unavailable)
        }
    }

    /// The bearer token of `--metrics-token-file`: a secret, so short ones are refused.
    static func metricsToken(file path: String) throws -> [UInt8] {
        let token = try SecretFile.read(path, what: "metrics token file")
        guard token.count >= 16 else {
            throw AppError("the metrics token file \(path) holds under 16 bytes; use a random token", exitCode: .config)
        }
        return token
    }

    /// Logs how many cluster redirects were followed (MOVED, ASK, TRYAGAIN), when `redis` is a cluster.
    static func logClusterRedirects(_ redis: any RedisClient) {
        guard let cluster = redis as? RedisCluster else { return }
        let counts = cluster.redirects
        Log.info(
            "redis_cluster_redirects",
            ["moved": String(counts.moved), "ask": String(counts.ask), "tryagain": String(counts.tryAgain)])
    }

    /// Raises the soft limit on open descriptors to the hard limit. Every connection costs one
    /// descriptor, and the common soft default (1024) is below the server's connection limit,
    /// so under a flood of slow clients accept() would fail with EMFILE before the per-address
    /// limit and the deadlines could shed them. The hard limit is the administrator's ceiling.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max
        else { return }
        let soft = limit.rlim_cur
        limit.rlim_cur = limit.rlim_max
        guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            Log.warn("nofile_limit", ["soft": String(soft), "error": String(cString: strerror(errno))])
            return
        }
    }

    /// The local store's URL secret (from the data dir); empty for a bucket.
    static func localStoreSecret(_ options: StorageOptions, data: DataDirectory) throws -> [UInt8] {
        options.backend == .local ? try data.secret(named: "storage-secret") : []
    }

    /// The configured object store: the local one under the data dir (also returned on its
    /// own, since this process serves its objects), or an S3/GCS bucket. `serving`: this process
    /// serves the local store and owns its uploads in progress (false for `sweep`).
    static func objectStorage(
        _ options: StorageOptions, data: DataDirectory, secret: [UInt8], publicBaseURL: String?, grid: ExpiryGrid,
        crypto: OpenSSLCrypto, metrics: CallMetrics? = nil, clients: Int, serving: Bool = true
    ) throws -> (any ObjectStorage, LocalObjectStore?) {
        switch options.backend {
        case .local:
            let local = try LocalObjectStore(
                root: data.objectsDirectory, publicBaseURL: publicBaseURL,
                secret: String(decoding: secret, as: UTF8.self), grid: grid, crypto: crypto,
                removePartialUploads: serving, metrics: metrics)
            return (local, local)
        case .s3, .gcs:
            // Objects are in the bucket: /objects/... is not served.
            return (
                try remoteStorage(
                    options, publicBaseURL: publicBaseURL, grid: grid, crypto: crypto, metrics: metrics,
                    clients: clients),
                nil
            )
        }
    }

    /// The S3 or GCS bucket of `--storage s3|gcs`, signed by the backend's signer.
    static func remoteStorage(
        _ options: StorageOptions, publicBaseURL: String?, grid: ExpiryGrid, crypto: OpenSSLCrypto,
        metrics: CallMetrics? = nil, clients: Int
    ) throws -> RemoteObjectStorage {
        guard let bucket = options.bucket else {
            throw AppError("--bucket is required with --storage \(options.backend.rawValue)", exitCode: .usage)
        }
        let signer = try SignerFactory.make(options, crypto: crypto)
        var configuration = RemoteObjectClient.Configuration()
        configuration.maxIdleClients = clients
        configuration.metrics = metrics
        return RemoteObjectStorage(
            backend: options.backend,
            client: RemoteObjectClient(signer: signer, bucket: bucket, configuration: configuration),
            publicBaseURL: publicBaseURL, grid: grid)
    }

    /// The host clients should use: a wildcard address is reached via loopback.
    static func clientHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::": return "[::1]"
        default: return HostAndPort.bracketed(host)
        }
    }
}

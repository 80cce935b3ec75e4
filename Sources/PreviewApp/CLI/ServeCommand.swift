import Foundation
import PreviewCore
import PreviewCrypto
import PreviewHTTPServer
import PreviewRedis

/// `streampreview serve`: Redis (ours or given), the object store, the HTTP API and the sweeper.
enum ServeCommand {
    /// Runs until SIGTERM or SIGINT (blocked in every thread and taken here), or until the
    /// embedded redis-server dies. The embedded Redis runs under `setpriv --pdeathsig KILL`,
    /// so it also goes when this process is killed outright.
    static func run(_ options: ServeOptions) throws -> ExitCode {
        let signals = ShutdownSignals.block()
        let data = try DataDirectory(path: options.dataDirectory)
        let crypto = OpenSSLCrypto()

        let embeddedRedis: RedisServerProcess?
        let endpoint: RedisEndpoint
        if let url = options.redisURL {
            do { endpoint = try RedisEndpoint.parse(url) } catch {
                throw AppError("--redis: \(error)", exitCode: .usage)
            }
            embeddedRedis = nil
        } else {
            do {
                let process = try RedisServerProcess.start(
                    directory: data.redisDirectory, executable: options.redisServer)
                embeddedRedis = process
                endpoint = process.endpoint
                Log.info("redis_started", ["socket": process.socketPath, "pid": String(process.pid)])
            } catch {
                throw AppError("\(error)", exitCode: .unavailable)
            }
        }
        defer { embeddedRedis?.stop() }

        let tokenSecret = try options.tokenSecret ?? data.secret(named: "token-secret")
        let pool = RedisPool(endpoint: endpoint, maxIdle: options.threads + 2)
        let store = PreviewStore(pool: pool, keys: RedisKeys(prefix: options.keyPrefix))
        let storage: any ObjectStorage
        let localStore: LocalObjectStore?
        switch options.storage.backend {
        case .local:
            let local = try LocalObjectStore(
                root: data.objectsDirectory, publicBaseURL: options.publicBaseURL,
                secret: try data.secret(named: "storage-secret"), grid: options.urlGrid, crypto: crypto)
            storage = local
            localStore = local
        case .s3, .gcs:
            storage = try remoteStorage(options, crypto: crypto)
            localStore = nil  // objects are in the bucket: /objects/... is not served
        }
        let context = AppContext(
            store: store, storage: storage, localStore: localStore, policy: options.policy,
            fastStart: options.fastStart,
            authenticator: Authenticator(
                verifier: JWTVerifier(keys: JWTKeySet(defaultKey: Array(tokenSecret.utf8)), crypto: crypto)),
            liveCache: LiveListCache(store: store, maxAgeMilliseconds: options.feedCacheMilliseconds),
            crypto: crypto, urlLifetime: options.urlGrid.lifetime, seenTTL: options.seenTTL,
            publicBaseURL: options.publicBaseURL, nowMilliseconds: { WallClock.nowMilliseconds() })

        var configuration = HTTPServerConfiguration()
        configuration.host = options.host
        configuration.port = options.port
        configuration.threadPoolSize = options.threads
        let server = HTTPServer(configuration: configuration, responder: Router(context: context))
        let port: UInt16
        do { port = try server.start() } catch { throw AppError("cannot listen: \(error)", exitCode: .unavailable) }
        defer { server.stop() }
        let baseURL = options.publicURL ?? "http://\(clientHost(options.host)):\(port)"
        try localStore?.setBaseURL(baseURL)

        let sweeper = SweeperLoop(
            sweeper: Sweeper(
                store: store, storage: storage, urlLifetime: options.urlGrid.lifetime,
                recheckAfter: max(60, options.policy.previewTTL)),
            interval: options.sweepInterval)
        sweeper.start()
        defer { sweeper.stop() }

        if let file = WallClock.testClockFile {
            if WallClock.isShifted {
                Log.warn("test_clock", ["file": file, "now": String(WallClock.now())])
            } else {
                Log.warn("test_clock_ignored", ["reason": "release build", "variable": WallClock.testClockVariable])
            }
        }
        print("listening on http://\(displayHost(options.host)):\(port)")
        _ = fflush(nil)  // ignored result: a closed stdout only loses the line, which serve does not need
        Log.info(
            "ready",
            [
                "port": String(port), "base_url": baseURL, "data_dir": data.path,
                "storage": options.storage.backend.rawValue, "bucket": options.storage.bucket ?? "",
            ])
        let reason = signals.wait(whileAlive: embeddedRedis)
        Log.info("stopping", ["reason": reason.description])
        // A dead embedded Redis is a failure, so a supervisor restarts us; a signal is a clean stop.
        return reason == .redisExited ? .unavailable : .ok
    }

    /// The S3 or GCS bucket of `--storage s3|gcs`, signed by the backend's signer.
    static func remoteStorage(_ options: ServeOptions, crypto: OpenSSLCrypto) throws -> RemoteObjectStorage {
        guard let bucket = options.storage.bucket else {
            throw AppError("--bucket is required with --storage \(options.storage.backend.rawValue)", exitCode: .usage)
        }
        let signer = try SignerFactory.make(options.storage, crypto: crypto)
        var configuration = RemoteObjectClient.Configuration()
        configuration.maxIdleClients = options.threads + 2
        return RemoteObjectStorage(
            backend: options.storage.backend,
            client: RemoteObjectClient(signer: signer, bucket: bucket, configuration: configuration),
            publicBaseURL: options.publicBaseURL, grid: options.urlGrid)
    }

    /// The host clients should use: a wildcard address is reached via loopback.
    static func clientHost(_ host: String) -> String {
        switch host {
        case "0.0.0.0", "": return "127.0.0.1"
        case "::": return "[::1]"
        default: return host.contains(":") ? "[\(host)]" : host
        }
    }

    static func displayHost(_ host: String) -> String {
        host.contains(":") ? "[\(host)]" : host
    }
}

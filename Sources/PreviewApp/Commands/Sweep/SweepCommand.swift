import PreviewCore
import PreviewCrypto
import PreviewRedis
import PreviewServer

/// `streampreview sweep`: one run of the sweeper against serve's Redis and object store.
enum SweepCommand {
    static func run(_ options: SweepOptions) throws -> ExitCode {
        let data = try DataDirectory(path: options.dataDirectory)
        let target = try redisTarget(options, data: data)
        let webhookSecrets = try options.webhooks.loadSecrets()
        let store = PreviewStore(
            client: target.client(maxIdle: max(2, options.webhooks.concurrency + 2), commandTimeout: 10),
            keys: RedisKeys(prefix: options.keyPrefix), webhookEvents: options.webhooks.isConfigured,
            webhookOutboxLimit: options.webhooks.backlogPerStream,
            figures: FigureSettings(retentionSeconds: options.statsRetentionSeconds))
        do { try store.ping() } catch {
            throw AppError("cannot reach Redis at \(target): \(error)", exitCode: .unavailable)
        }
        let (storage, _) = try ServeCommand.objectStorage(
            options.storage, data: data, secret: try ServeCommand.localStoreSecret(options.storage, data: data),
            publicBaseURL: nil, grid: ExpiryGrid(), crypto: OpenSSLCrypto(), clients: options.concurrency,
            serving: false)
        var settings = SweepSettings()
        settings.graceSeconds = options.graceSeconds
        settings.concurrency = options.concurrency
        settings.batchStreams = options.batchStreams
        let sweeper = Sweeper(store: store, storage: storage, settings: settings)

        let report: Sweeper.Report
        let started = ContinuousClock.now
        do {
            if options.dryRun {
                report = try sweeper.dryRun(now: WallClock.now()) { print($0) }
            } else {
                report = try sweeper.drain(maxSeconds: Double(options.maxSeconds), now: WallClock.now)
                try deliverWebhooks(
                    options, secrets: webhookSecrets, store: store, until: started + .seconds(options.maxSeconds))
            }
        } catch let error as RedisError {
            Log.warn("sweep_failed", ["error": "\(error)"])
            throw AppError("Redis failed during the run: \(error)", exitCode: .unavailable)
        }
        if let backlog = try? store.sweepBacklog(now: WallClock.now()) {
            Log.info(
                "sweep",
                [
                    "stop": report.stop.rawValue, "queued_streams": String(backlog.queued),
                    "due_streams": String(backlog.due),
                ])
        }
        print(report.summary)
        switch report.stop {
        case .storeUnreachable:
            throw AppError(
                "the object store is unreachable; \(report.failures) delete(s) stay queued", exitCode: .unavailable)
        case .leaseLost, .timeUp, .stopped:
            return .tempFailure
        case .drained, .leaseHeld:
            return report.failures > 0 ? .tempFailure : .ok
        }
    }

    /// Relays and delivers the webhooks that are due, with a consumer name of this run's own.
    static func deliverWebhooks(
        _ options: SweepOptions, secrets: [[UInt8]], store: PreviewStore, until deadline: ContinuousClock.Instant
    ) throws {
        guard
            let setup = WebhookSetup.make(
                options.webhooks, secrets: secrets, store: store, crypto: OpenSSLCrypto(), metrics: WebhookMetrics(),
                consumer: "sweep-" + store.origin, now: WallClock.now)
        else { return }
        let report = try WebhookSweepRun(setup: setup).run(until: deadline)
        Log.info(
            "webhooks",
            [
                "relayed": String(report.relayed), "delivered": String(report.delivered),
                "failed": String(report.failed), "dead": String(report.deadLettered),
                "stop": report.timeUp ? "time_up" : "drained",
            ])
    }

    /// `--redis`, or the unix socket of the embedded Redis of a serve running on the data dir.
    static func redisTarget(_ options: SweepOptions, data: DataDirectory) throws -> RedisTarget {
        if let url = options.redisURL {
            do { return try RedisTarget.parse(url) } catch { throw AppError("--redis: \(error)", exitCode: .usage) }
        }
        let socket = RedisServerProcess.socketPath(directory: data.redisDirectory)
        let endpoint = RedisEndpoint(address: .unix(path: socket))
        do {
            _ = try RedisConnection(endpoint: endpoint).command(["PING"])
        } catch {
            throw AppError(
                "no streampreview serve is running on --data-dir \(data.path) (its Redis socket \(socket) does not "
                    + "answer: \(error)); start serve there, or pass --redis", exitCode: .unavailable)
        }
        return .server(endpoint)
    }
}

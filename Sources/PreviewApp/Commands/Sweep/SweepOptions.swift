import PreviewCore
import PreviewServer

/// Everything `sweep` can be told: the Redis and storage configuration of `serve`, the
/// lifetimes the sweeper works with, and the bounds of one run.
struct SweepOptions: Sendable, Equatable {
    var dataDirectory = "./.streampreview"
    /// An existing Redis; nil = the embedded Redis of a `serve` running on `dataDirectory`.
    var redisURL: String?
    var keyPrefix = "sp"
    var storage = StorageOptions()
    /// Accepted so one configuration serves both commands; commits are judged by the deadline
    /// `serve` recorded with each upload.
    var commitWindow = UploadPolicy().commitWindow
    var graceSeconds = ExpiryGrid().lifetime
    var maxSeconds: Int64 = 300
    var concurrency = 8
    var batchStreams = SweepSettings().batchStreams
    var dryRun = false
    /// With URLs: expiries are announced, and the run then delivers what is due (`WebhookSweepRun`).
    var webhooks = WebhookOptions()
    /// How long the figures of the versions this run retires are kept (`--stats-retention`).
    var statsRetentionSeconds = FigureSettings.defaultRetentionSeconds

    init() {}

    static let specs: [OptionSpec] =
        [
            OptionSpec(
                flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
                help:
                    "serve's data dir: without --redis, the embedded Redis of the serve running there; the local store's objects (default ./.streampreview)"
            ),
            OptionSpec(
                flag: "redis", environment: "STREAMPREVIEW_REDIS_URL",
                help:
                    "the Redis serve uses (redis://host:port/db, unix:///path, redis-sentinel://hosts/db#MASTER or redis-cluster://host:port,...)"
            ),
            ServeOptions.keyPrefixSpec,
        ] + ServeOptions.lifetimeSpecs + [
            OptionSpec(
                flag: "max-seconds", environment: "STREAMPREVIEW_SWEEP_MAX_SECONDS",
                help:
                    "stop taking new batches after this many seconds, so a cron run never overlaps the next (default 300)"
            ),
            OptionSpec(
                flag: "concurrency", environment: "STREAMPREVIEW_SWEEP_CONCURRENCY",
                help: "delete requests in flight at once (default 8)"),
            OptionSpec(
                flag: "batch-streams", environment: "STREAMPREVIEW_SWEEP_BATCH_STREAMS",
                help: "streams taken per batch; each batch's deletes run side by side (default 1000)"),
            OptionSpec(
                flag: "dry-run",
                help: "print what would be expired and deleted; change nothing (--dry-run=false: a real run)",
                isSwitch: true),
        ] + StorageOptions.specs + WebhookOptions.specs + [FigureOptions.retentionSpec]

    static func parse(_ options: ParsedOptions, environment: [String: String]) throws(UsageError) -> SweepOptions {
        var sweep = SweepOptions()
        sweep.storage = try StorageOptions.parse(options, environment: environment)
        if let dir = options.string("data-dir") { sweep.dataDirectory = dir }
        sweep.redisURL = options.string("redis")
        sweep.keyPrefix = try ServeOptions.keyPrefix(options)
        sweep.commitWindow = try ServeOptions.commitWindow(options)
        sweep.graceSeconds = try ServeOptions.grace(options)
        sweep.maxSeconds = try options.int64("max-seconds", default: sweep.maxSeconds, range: 1...86400)
        sweep.concurrency = Int(try options.int64("concurrency", default: Int64(sweep.concurrency), range: 1...256))
        sweep.batchStreams = Int(
            try options.int64("batch-streams", default: Int64(sweep.batchStreams), range: 1...100_000))
        sweep.dryRun = try options.bool("dry-run")
        sweep.webhooks = try WebhookOptions.parse(options)
        sweep.statsRetentionSeconds = try FigureOptions.parseRetention(options)
        return sweep
    }

    static var help: String {
        """
        Usage: streampreview sweep [options]

        One run of the sweeper: removes expired previews from the feed, then deletes every
        object that is due (replaced and ended objects past their grace, uploads not committed
        by their deadline) in batches, and exits. Only one sweeper acts at a time (a 10 s lease
        in Redis, renewed every 2 s while a run works): a run that finds another one working
        does nothing and says so (stop=lease_held); one killed keeps the others out at most
        10 s, and the next run takes over what it had claimed.

        With --webhook-url (the same webhook flags as serve), the previews it expires and the
        replaced previews whose objects it deletes are announced, and then, in what is left of
        --max-seconds, it relays every stream's events and delivers what is due (new events and
        retries whose backoff is over; --webhook-concurrency at a time per URL, at least 1), and
        logs 'event=webhooks relayed=N delivered=D failed=F dead=X'. Failed deliveries wait for
        the next run, or for a serve with the same flags.

        Prints one line: swept previews=N objects=M kept=K failed=F seconds=S stop=REASON
        (REASON: drained, lease_held with lease_ends_in=S, lease_lost, time_up,
        store_unreachable).
        Exit status: 0 all due work done, or another sweeper holds the lease (stop=lease_held:
        that one does the work); 75 some deletes failed (they stay queued and are retried with
        backoff), --max-seconds ran out first, or the lease was lost mid-run; 69 Redis or the
        object store is unreachable, or no serve runs on --data-dir; 64 bad options.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))

        \(StorageOptions.credentialVariables)
        """
    }
}

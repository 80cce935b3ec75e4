import PreviewCore
import PreviewServer

/// `streampreview webhooks dead|replay`: the operator's view of the dead letters, against the
/// Redis `serve` uses.
struct WebhooksOptions: Sendable, Equatable {
    enum Action: Sendable, Equatable {
        /// List dead letters, oldest first.
        case dead
        /// Put dead letters back for delivery: these IDs, or every one (empty).
        case replay(ids: [String])
    }

    var action = Action.dead
    var dataDirectory = "./.streampreview"
    /// An existing Redis; nil = the embedded Redis of a `serve` running on `dataDirectory`.
    var redisURL: String?
    var keyPrefix = "sp"
    /// At most this many dead letters listed or replayed.
    var limit = 1000
    /// A replayed delivery is tried for this long from the replay on.
    var maxAgeSeconds = WebhookOptions().maxAgeSeconds

    init() {}

    static let specs: [OptionSpec] = [
        OptionSpec(
            flag: "data-dir", environment: "STREAMPREVIEW_DATA_DIR",
            help:
                "serve's data dir: without --redis, the embedded Redis of the serve running there (default ./.streampreview)"
        ),
        OptionSpec(
            flag: "redis", environment: "STREAMPREVIEW_REDIS_URL",
            help:
                "the Redis serve uses (redis://host:port/db, unix:///path, redis-sentinel://... or redis-cluster://...)"
        ),
        ServeOptions.keyPrefixSpec,
        OptionSpec(flag: "limit", help: "at most this many dead letters listed or replayed (default 1000)"),
        OptionSpec(
            flag: "all", help: "replay: every dead letter (up to --limit) instead of the IDs given", isSwitch: true),
        OptionSpec(
            flag: "webhook-max-age", environment: "STREAMPREVIEW_WEBHOOK_MAX_AGE",
            help: "replay: seconds a replayed delivery is retried from now before it is dead again (default 86400)"),
    ]

    static func parse(_ options: ParsedOptions) throws(UsageError) -> WebhooksOptions {
        var webhooks = WebhooksOptions()
        guard let action = options.positional.first else {
            throw UsageError("webhooks needs an action: dead or replay; see 'streampreview webhooks --help'")
        }
        let ids = Array(options.positional.dropFirst())
        let all = try options.bool("all")
        switch action {
        case "dead":
            guard ids.isEmpty, !all else { throw UsageError("webhooks dead takes no IDs and no --all") }
            webhooks.action = .dead
        case "replay":
            guard ids.isEmpty == all else {
                throw UsageError("webhooks replay needs dead-letter IDs (from 'webhooks dead') or --all, not both")
            }
            for id in ids where !Self.isStreamEntryID(id) {
                throw UsageError("'\(id)' is not a dead-letter ID (MILLISECONDS-SEQUENCE, as 'webhooks dead' prints)")
            }
            webhooks.action = .replay(ids: ids)
        default:
            throw UsageError("unknown webhooks action '\(action)': dead or replay")
        }
        if let dir = options.string("data-dir") { webhooks.dataDirectory = dir }
        webhooks.redisURL = options.string("redis")
        webhooks.keyPrefix = try ServeOptions.keyPrefix(options)
        webhooks.limit = Int(try options.int64("limit", default: Int64(webhooks.limit), range: 1...1_000_000))
        webhooks.maxAgeSeconds = try options.int64(
            "webhook-max-age", default: webhooks.maxAgeSeconds, range: 1...(30 * 86400))
        return webhooks
    }

    /// A Redis Stream entry ID: two decimal numbers joined by a dash.
    static func isStreamEntryID(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        return parts.count == 2 && parts.allSatisfy { !$0.isEmpty && $0.count <= 20 && $0.allSatisfy(\.isASCIIDigit) }
    }

    static var help: String {
        """
        Usage: streampreview webhooks dead [options]
               streampreview webhooks replay (ID... | --all) [options]

        Webhook deliveries that kept failing until --webhook-max-age after their event are moved
        to a dead-letter stream in Redis (about 100,000 kept).

        dead     lists them, oldest first, one line each:
                 ID event=EVENT_ID type=TYPE stream=STREAM version=V url=URL attempts=N dead_at=UNIX error="..."
        replay   puts the given dead letters (or --all) back into their URL's delivery stream, to be
                 delivered again by any serve or sweep with that --webhook-url, retried for
                 --webhook-max-age from now; prints 'replayed ID event=EVENT_ID' per dead letter and
                 'replayed=N missing=M' last. The event keeps its ID, so receivers still drop copies.

        Exit status: 0 done; 1 some IDs were not dead letters (missing); 69 Redis is unreachable;
        64 bad options.

        Options (flags override environment variables):
        \(OptionParser.helpText(specs))
        """
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

import PreviewServer

/// The options of what viewers see: the viewer page and the live event streams.
extension ServeOptions {
    static let viewerSpecs = [
        OptionSpec(
            flag: "no-viewer-page", environment: "STREAMPREVIEW_NO_VIEWER_PAGE",
            help: "do not serve the viewer page (GET /, /viewer.js, /viewer.css): they answer 404 (default: served)",
            isSwitch: true),
        OptionSpec(
            flag: "events-heartbeat", environment: "STREAMPREVIEW_EVENTS_HEARTBEAT",
            help:
                "seconds a stream of GET /api/feed/events goes without bytes before it gets a heartbeat comment (between half this and this, drawn per stream, so streams are not all woken at once), which keeps proxies from closing quiet streams; a client that leaves frees its stream at once, heartbeat or not (default 15)"
        ),
        OptionSpec(
            flag: "max-event-streams", environment: "STREAMPREVIEW_MAX_EVENT_STREAMS",
            help:
                "event streams (GET /api/feed/events) open at once, apart from --max-connections, which they never take; past it a new one is 503 event_streams_full with Retry-After. Each holds a file descriptor and about 20 KiB: serve raises its descriptor limit to the hard limit at start and lowers this to fit, with a warning (default 10000)"
        ),
        OptionSpec(
            flag: "max-event-streams-per-ip", environment: "STREAMPREVIEW_MAX_EVENT_STREAMS_PER_IP",
            help:
                "event streams one client address (an IPv6 /64) may hold open at once; past it 503 event_streams_full (default 64)"
        ),
        OptionSpec(
            flag: "events-history", environment: "STREAMPREVIEW_EVENTS_HISTORY",
            help:
                "about how many feed events the Redis event log keeps for clients that reconnect with Last-Event-ID; one that missed more is sent a reset event and reloads the feed (default 10000)"
        ),
    ]

    static func parseViewers(_ options: ParsedOptions, into serve: inout ServeOptions) throws(UsageError) {
        serve.viewerPage = !(try options.bool("no-viewer-page"))
        serve.eventsHeartbeat = try options.int64("events-heartbeat", default: serve.eventsHeartbeat, range: 1...3600)
        serve.eventsHistory = Int(
            try options.int64("events-history", default: Int64(serve.eventsHistory), range: 1...10_000_000))
        serve.maxEventStreams = Int(
            try options.int64("max-event-streams", default: Int64(serve.maxEventStreams), range: 0...1_000_000))
        serve.maxEventStreamsPerIP = Int(
            try options.int64(
                "max-event-streams-per-ip", default: Int64(serve.maxEventStreamsPerIP), range: 1...1_000_000))
    }
}

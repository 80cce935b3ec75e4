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
                "seconds between heartbeat comments on GET /api/feed/events, which keep proxies from closing quiet streams and find clients that left, within two (default 15)"
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
    }
}

import PreviewCore
import PreviewServer

/// The figures and tracking link options: `--no-stats`, `--stats-retention` and
/// `--stats-versions` (the retention shared with `sweep`, which closes expired versions too),
/// and `--watch-url-schemes` and `--rank-by` (serve).
struct FigureOptions: Sendable, Equatable {
    var settings = FigureSettings()
    /// Schemes besides https a watch URL may have, lower case.
    var watchURLSchemes: Set<String> = []

    init() {}

    static let retentionSpec = OptionSpec(
        flag: "stats-retention", environment: "STREAMPREVIEW_STATS_RETENTION",
        help:
            "seconds a preview version's figures (GET /api/streams/{id}/stats) are kept after it stops being live, 60 to 31536000; also how long a stream's watch URL is kept past its last set or commit (default \(FigureSettings.defaultRetentionSeconds))"
    )

    static let serveSpecs = [
        OptionSpec(
            flag: "no-stats", environment: "STREAMPREVIEW_NO_STATS",
            help:
                "count no figures: versions published from now on count nothing, GET /api/streams/{id}/stats answers 404 (the tracking link still sends browsers to the watch URL)",
            isSwitch: true),
        retentionSpec,
        OptionSpec(
            flag: "stats-versions", environment: "STREAMPREVIEW_STATS_VERSIONS",
            help:
                "preview versions of one stream whose figures are kept, 1 to 10000; a new version past it drops the oldest's (default \(FigureSettings.defaultVersionsKept))"
        ),
        OptionSpec(
            flag: "rank-by", environment: "STREAMPREVIEW_RANK_BY",
            help:
                "what orders the previews a viewer has seen (unseen ones always come first, newest first): likes, or opens for the open rate through the tracking link with a prior, (opens + 2.5) / (distinct impressions + 50), read at each feed reload; opens needs the figures on (default likes)"
        ),
        OptionSpec(
            flag: "watch-url-schemes", environment: "STREAMPREVIEW_WATCH_URL_SCHEMES",
            help:
                "comma-separated URL schemes besides https a stream's watch URL may have, such as an app's deep-link scheme (myapp); javascript, data, file and the like are always refused (default: https only)"
        ),
    ]

    static func parseRetention(_ options: ParsedOptions) throws(UsageError) -> Int64 {
        try options.int64(
            "stats-retention", default: FigureSettings.defaultRetentionSeconds, range: 60...(365 * 86_400))
    }

    static func parse(_ options: ParsedOptions) throws(UsageError) -> FigureOptions {
        var figures = FigureOptions()
        let enabled = !(try options.bool("no-stats"))
        var ranking = FeedRanking.likes
        if let name = options.string("rank-by") {
            guard let chosen = FeedRanking(rawValue: name) else {
                throw UsageError("--rank-by must be likes or opens, not '\(name)'")
            }
            guard enabled || chosen == .likes else {
                throw UsageError("--rank-by opens needs the figures it ranks by: it cannot go with --no-stats")
            }
            ranking = chosen
        }
        figures.settings = FigureSettings(
            enabled: enabled, retentionSeconds: try parseRetention(options),
            versionsKept: Int(
                try options.int64(
                    "stats-versions", default: Int64(FigureSettings.defaultVersionsKept), range: 1...10_000)),
            ranking: ranking)
        for scheme in (options.string("watch-url-schemes") ?? "").split(separator: ",") {
            let scheme = scheme.trimmingSpacesAndTabs().lowercased()
            guard !scheme.isEmpty else { continue }
            guard WatchURL.problem(scheme + ":x", allowedSchemes: [scheme]) == nil else {
                throw UsageError(
                    "--watch-url-schemes: '\(scheme)' is not a scheme a watch URL may have (letters, digits, + - ., "
                        + "starting with a letter; never javascript, data, file and the like)")
            }
            figures.watchURLSchemes.insert(scheme)
        }
        return figures
    }
}

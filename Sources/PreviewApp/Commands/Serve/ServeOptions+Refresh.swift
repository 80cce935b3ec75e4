import PreviewServer

/// When a fresh preview is due: told to uploaders (`refreshAfter`), and past it the feed marks
/// the preview `stale`.
extension ServeOptions {
    static let refreshSpecs = [
        OptionSpec(
            flag: "preview-refresh", environment: "STREAMPREVIEW_PREVIEW_REFRESH",
            help:
                "seconds after a commit at which a fresh preview is due, below --preview-ttl: upload answers carry it as refreshAfter (capture follows it), and the feed marks older previews stale (default half the preview TTL)"
        )
    ]

    /// Reads `--preview-refresh`; call after `--preview-ttl`, which bounds it.
    static func parseRefresh(_ options: ParsedOptions, into serve: inout ServeOptions) throws(UsageError) {
        let ttl = serve.policy.previewTTL
        guard options.isSet("preview-refresh") else {
            serve.policy.previewRefresh = defaultRefresh(previewTTL: ttl)
            return
        }
        guard ttl > 1 else {
            throw UsageError("--preview-refresh needs a --preview-ttl of 2 or more, and it is \(ttl)")
        }
        serve.policy.previewRefresh = try options.int64("preview-refresh", default: 0, range: 1...(ttl - 1))
    }

    /// Half the TTL, so a client that misses one refresh still has time before its preview
    /// leaves the feed; at least 1 s.
    static func defaultRefresh(previewTTL: Int64) -> Int64 {
        max(1, previewTTL / 2)
    }
}

/// Clients that fetch a link to show or index it, not to follow it: chat apps' link-preview
/// fetchers and search crawlers. They announce themselves in `User-Agent`; their fetches of a
/// tracking link get the page with link-preview tags and are not counted as opens.
public enum LinkPreviewers {
    /// Lower-case fragments of the user agents of the common previewers and crawlers, and the
    /// words crawlers put in theirs.
    static let fragments = [
        "facebookexternalhit", "facebookcatalog", "meta-externalagent", "twitterbot", "slackbot",
        "slack-imgproxy", "discordbot", "telegrambot", "whatsapp", "linkedinbot", "skypeuripreview",
        "pinterest", "redditbot", "embedly", "iframely", "vkshare", "line-poker", "applebot",
        "googlebot", "google-inspectiontool", "bingbot", "bingpreview", "yandex", "baiduspider",
        "duckduckbot", "mastodon", "bot/", "bot;", "crawler", "spider", "preview",
    ]

    /// Whether `userAgent` announces a link previewer or crawler; a missing or empty one is
    /// a script, not a viewer's browser, so it counts as one too.
    public static func isPreviewer(userAgent: String?) -> Bool {
        guard let userAgent, !userAgent.isEmpty else { return true }
        let lowered = userAgent.lowercased()
        return fragments.contains { lowered.contains($0) }
    }
}

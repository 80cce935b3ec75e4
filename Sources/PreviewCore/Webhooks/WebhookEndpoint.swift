/// A receiver URL and the short name of its delivery stream in Redis: the first 16 hex digits
/// of SHA-256 of the URL, so the stream follows the URL whatever order the flags list it in, and
/// a URL that carries a token in its query is not spelled out in key names or metrics.
public struct WebhookEndpoint: Sendable, Equatable, Hashable {
    public let url: String
    public let id: String

    public init(url: String, crypto: any CryptoPrimitives) {
        self.url = url
        id = String(Hex.encode(crypto.sha256(Array(url.utf8))).prefix(16))
    }

    /// The URL without its query and user info, for logs.
    public var redactedURL: String { Self.redacted(url) }

    /// `url` without its query, fragment and user info (which may hold a token), for logs.
    public static func redacted(_ url: String) -> String {
        var text = url.prefix { $0 != "?" && $0 != "#" }
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@"),
            !text[scheme.upperBound..<at].contains("/")
        {
            text = text[..<scheme.upperBound] + text[text.index(after: at)...]
        }
        return String(text)
    }
}

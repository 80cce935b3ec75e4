public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// One live stream's preview in the feed; also what a commit publishes (`FeedItem` of
/// proto/openapi.yaml, JSON in the proto3 mapping: int64 fields as strings).
public struct FeedItem: Sendable, Hashable, Codable, Identifiable {
    public var streamId: Int64
    /// GET URL of the clip (signed, or under the server's public base URL).
    public var movieUrl: String
    /// GET URL of the thumbnail.
    public var thumbnailUrl: String
    public var likes: Int64
    /// Whether the caller likes the stream (false for anonymous callers and in events).
    public var liked: Bool
    /// Whether the caller has seen this preview version.
    public var seen: Bool
    public var previewVersion: Int64
    /// Commit time of this preview version (Unix seconds).
    public var updatedAt: Int64
    /// When the preview leaves the feed (Unix seconds).
    public var expiresAt: Int64
    /// Clip length in milliseconds; 0 is unknown.
    public var durationMs: Int64
    /// Pixels of the clip's first video track; 0 is unknown.
    public var width: Int32
    public var height: Int32
    /// Whether playback can start while the clip downloads (`moov` before `mdat`).
    public var fastStart: Bool
    /// Whether a fresh clip was due and has not come (the stream's source may be down).
    public var stale: Bool
    /// What the server's moderation hook attached; empty for most previews.
    public var labels: [String: String]
    /// The stream's share page (with link previews), when the server has a public URL.
    public var shareUrl: String
    /// A GET URL of the clip that saves it as a file; empty unless the server offers downloads.
    public var downloadUrl: String
    /// The clip's video codec as RFC 6381 writes it (`avc1.42E01E`): check it with
    /// `AVURLAsset.isPlayableExtendedMIMEType` or `MediaSource.isTypeSupported` before loading;
    /// empty when the server did not say.
    public var codecs: String
    /// What the streamer said of the preview (`PreviewDetails`); empty and false when not said.
    public var details: PreviewDetails

    public var id: Int64 { streamId }

    public init(
        streamId: Int64, movieUrl: String = "", thumbnailUrl: String = "", likes: Int64 = 0, liked: Bool = false,
        seen: Bool = false, previewVersion: Int64 = 1, updatedAt: Int64 = 0, expiresAt: Int64 = 0,
        durationMs: Int64 = 0, width: Int32 = 0, height: Int32 = 0, fastStart: Bool = false, stale: Bool = false,
        labels: [String: String] = [:], shareUrl: String = "", downloadUrl: String = "", codecs: String = "",
        details: PreviewDetails = PreviewDetails()
    ) {
        self.streamId = streamId
        self.movieUrl = movieUrl
        self.thumbnailUrl = thumbnailUrl
        self.likes = likes
        self.liked = liked
        self.seen = seen
        self.previewVersion = previewVersion
        self.updatedAt = updatedAt
        self.expiresAt = expiresAt
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.fastStart = fastStart
        self.stale = stale
        self.labels = labels
        self.shareUrl = shareUrl
        self.downloadUrl = downloadUrl
        self.codecs = codecs
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case streamId, movieUrl, thumbnailUrl, likes, liked, seen, previewVersion, updatedAt, expiresAt, durationMs
        case width, height, fastStart, stale, labels, shareUrl, downloadUrl, codecs
        case title, category, language, mature, altText
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        streamId = try c.int64(.streamId)
        movieUrl = try c.decode(String.self, forKey: .movieUrl)
        thumbnailUrl = try c.decode(String.self, forKey: .thumbnailUrl)
        likes = try c.int64(.likes)
        liked = try c.decodeIfPresent(Bool.self, forKey: .liked) ?? false
        seen = try c.decodeIfPresent(Bool.self, forKey: .seen) ?? false
        previewVersion = try c.int64(.previewVersion)
        updatedAt = try c.int64(.updatedAt)
        expiresAt = try c.int64(.expiresAt)
        durationMs = try c.int64(.durationMs)
        width = try c.decodeIfPresent(Int32.self, forKey: .width) ?? 0
        height = try c.decodeIfPresent(Int32.self, forKey: .height) ?? 0
        fastStart = try c.decodeIfPresent(Bool.self, forKey: .fastStart) ?? false
        stale = try c.decodeIfPresent(Bool.self, forKey: .stale) ?? false
        labels = try c.decodeIfPresent([String: String].self, forKey: .labels) ?? [:]
        shareUrl = try c.decodeIfPresent(String.self, forKey: .shareUrl) ?? ""
        downloadUrl = try c.decodeIfPresent(String.self, forKey: .downloadUrl) ?? ""
        codecs = try c.decodeIfPresent(String.self, forKey: .codecs) ?? ""
        details = PreviewDetails(
            title: try c.decodeIfPresent(String.self, forKey: .title) ?? "",
            category: try c.decodeIfPresent(String.self, forKey: .category) ?? "",
            language: try c.decodeIfPresent(String.self, forKey: .language) ?? "",
            mature: try c.decodeIfPresent(Bool.self, forKey: .mature) ?? false,
            altText: try c.decodeIfPresent(String.self, forKey: .altText) ?? "")
    }

    /// Writes the proto3 JSON mapping the server writes (int64 as strings; labels, the two
    /// optional URLs, the codecs and the details left out when empty).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(String(streamId), forKey: .streamId)
        try c.encode(movieUrl, forKey: .movieUrl)
        try c.encode(thumbnailUrl, forKey: .thumbnailUrl)
        try c.encode(String(likes), forKey: .likes)
        try c.encode(liked, forKey: .liked)
        try c.encode(seen, forKey: .seen)
        try c.encode(String(previewVersion), forKey: .previewVersion)
        try c.encode(String(updatedAt), forKey: .updatedAt)
        try c.encode(String(expiresAt), forKey: .expiresAt)
        try c.encode(String(durationMs), forKey: .durationMs)
        try c.encode(width, forKey: .width)
        try c.encode(height, forKey: .height)
        try c.encode(fastStart, forKey: .fastStart)
        try c.encode(stale, forKey: .stale)
        if !labels.isEmpty { try c.encode(labels, forKey: .labels) }
        if !shareUrl.isEmpty { try c.encode(shareUrl, forKey: .shareUrl) }
        if !downloadUrl.isEmpty { try c.encode(downloadUrl, forKey: .downloadUrl) }
        if !codecs.isEmpty { try c.encode(codecs, forKey: .codecs) }
        if !details.title.isEmpty { try c.encode(details.title, forKey: .title) }
        if !details.category.isEmpty { try c.encode(details.category, forKey: .category) }
        if !details.language.isEmpty { try c.encode(details.language, forKey: .language) }
        if details.mature { try c.encode(true, forKey: .mature) }
        if !details.altText.isEmpty { try c.encode(details.altText, forKey: .altText) }
    }
}

/// A feed answer: the items in play order and the ETag to revalidate it with.
public struct Feed: Sendable, Hashable {
    public var items: [FeedItem]
    /// Send it back as `ifNoneMatch` to get `nil` (304) while the feed is unchanged.
    public var etag: String?

    public init(items: [FeedItem], etag: String? = nil) {
        self.items = items
        self.etag = etag
    }
}

/// A stream's like count and whether the caller likes it (`LikeResponse`).
public struct LikeState: Sendable, Hashable, Decodable {
    public var likes: Int64
    public var liked: Bool

    public init(likes: Int64, liked: Bool) {
        self.likes = likes
        self.liked = liked
    }

    enum CodingKeys: String, CodingKey { case likes, liked }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        likes = try c.int64(.likes)
        liked = try c.decode(Bool.self, forKey: .liked)
    }
}

/// One file's signed PUT: the URL, the exact headers the server named, and the file to send.
public struct SignedPut: Sendable, Hashable, Codable {
    public var url: URL
    public var headers: [String: String]
    /// The local file the PUT sends (from its first byte on every attempt).
    public var file: URL

    public init(url: URL, headers: [String: String], file: URL) {
        self.url = url
        self.headers = headers
        self.file = file
    }

    /// The request to hand to any `URLSession` (a background one included) with
    /// `uploadTask(with:fromFile:)` and `file`. A signed `Content-Length` is left to the session,
    /// which sends the file's own: a file that changed size since is refused by the store (a
    /// stale header would leave bytes on the connection instead).
    public var request: URLRequest {
        SessionTransport.urlRequest(TransportRequest(method: "PUT", url: url, headers: sentHeaders))
    }

    /// The headers as sent: all but `Content-Length`, which comes from the file itself.
    var sentHeaders: [String: String] {
        headers.filter { $0.key.lowercased() != "content-length" }
    }
}

/// An upload the server has issued (`StreamPreviewPostResponse`): what to PUT where, and the ID
/// to commit. `Codable`, so an app can keep it while a background session uploads the files.
public struct UploadTicket: Sendable, Hashable, Codable {
    public var streamId: Int64
    /// 32 lower-case hex digits; commit with it.
    public var uploadId: String
    /// When both signed URLs expire (Unix seconds).
    public var expiresAt: Int64
    /// Seconds after the commit at which a fresh preview of the stream is due (0 from old servers).
    public var refreshAfter: Int64
    public var clip: SignedPut
    public var still: SignedPut
}

/// What the streamer says of a preview, sent with its upload request and shown with it: the
/// title, a category slug (`music`), a BCP 47 language tag (`ja`), whether it is for mature
/// audiences, and alt text (what the clip shows, for screen readers). The server refuses a value
/// it cannot take with 400 `invalid_argument` naming the field; each upload states its own.
public struct PreviewDetails: Sendable, Hashable, Codable {
    public var title: String
    public var category: String
    public var language: String
    public var mature: Bool
    public var altText: String

    public init(
        title: String = "", category: String = "", language: String = "", mature: Bool = false, altText: String = ""
    ) {
        self.title = title
        self.category = category
        self.language = language
        self.mature = mature
        self.altText = altText
    }
}

/// What `upload` did: the upload the server issued and the item it published.
public struct UploadResult: Sendable, Hashable {
    public var ticket: UploadTicket
    public var item: FeedItem
}

/// The answer of `POST /api/preview/post`, as sent.
struct PostResponse: Decodable {
    var movieBodyUrl: String
    var movieThumbnailBodyUrl: String
    var uploadId: String
    var expiresAt: Int64
    var movieHeaders: [String: String]
    var thumbnailHeaders: [String: String]
    var refreshAfter: Int64

    enum CodingKeys: String, CodingKey {
        case movieBodyUrl, movieThumbnailBodyUrl, uploadId, expiresAt, movieHeaders, thumbnailHeaders, refreshAfter
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        movieBodyUrl = try c.decode(String.self, forKey: .movieBodyUrl)
        movieThumbnailBodyUrl = try c.decode(String.self, forKey: .movieThumbnailBodyUrl)
        uploadId = try c.decode(String.self, forKey: .uploadId)
        expiresAt = try c.int64(.expiresAt)
        movieHeaders = try c.decodeIfPresent([String: String].self, forKey: .movieHeaders) ?? [:]
        thumbnailHeaders = try c.decodeIfPresent([String: String].self, forKey: .thumbnailHeaders) ?? [:]
        refreshAfter = try c.decodeIfPresent(Int64String.self, forKey: .refreshAfter)?.value ?? 0
    }
}

struct FeedBody: Decodable {
    var items: [FeedItem]
}

/// An int64 of the proto3 JSON mapping: a string of digits on output, a number accepted too.
struct Int64String: Decodable {
    var value: Int64

    init(from decoder: any Decoder) throws {
        let single = try decoder.singleValueContainer()
        if let number = try? single.decode(Int64.self) {
            value = number
        } else if let parsed = Int64(try single.decode(String.self)) {
            value = parsed
        } else {
            throw DecodingError.dataCorruptedError(in: single, debugDescription: "not an int64")
        }
    }
}

extension KeyedDecodingContainer {
    func int64(_ key: Key) throws -> Int64 {
        try decodeIfPresent(Int64String.self, forKey: key)?.value ?? 0
    }
}

/// The body a commit hook receives: the upload that is about to be published, with GET URLs of
/// both objects that stop working at `urlsExpireAt`. JSON shaped as the API's answers are
/// (proto3 mapping: 64-bit integers as strings, keys in byte order), so a receiver reads it
/// with the same code as a feed item.
public struct CommitHookCall: Sendable, Equatable {
    /// One uploaded object as commit verified it.
    public struct Object: Sendable, Equatable {
        public var url: String
        public var contentType: String
        public var bytes: Int64

        public init(url: String, contentType: String, bytes: Int64) {
            self.url = url
            self.contentType = contentType
            self.bytes = bytes
        }
    }

    /// What the hook is asked about; one value today, named so a receiver shared with other
    /// events can tell.
    public static let type = "preview.commit"

    public var streamId: Int64
    public var uploadId: String
    /// The token subject of the commit.
    public var subject: String
    public var movie: Object
    public var thumbnail: Object
    /// What commit read from the clip's boxes; 0 when unknown (not an MP4/QuickTime clip).
    public var durationMs: Int64
    public var width: Int32
    public var height: Int32
    public var urlsExpireAt: Int64
    /// What the streamer said of the preview; the JSON has it as `details` when any of it was
    /// said.
    public var details: PreviewDescription

    public init(
        streamId: Int64, uploadId: String, subject: String, movie: Object, thumbnail: Object, durationMs: Int64,
        width: Int32, height: Int32, urlsExpireAt: Int64, details: PreviewDescription = PreviewDescription()
    ) {
        self.streamId = streamId
        self.uploadId = uploadId
        self.subject = subject
        self.movie = movie
        self.thumbnail = thumbnail
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.urlsExpireAt = urlsExpireAt
        self.details = details
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        if !details.isEmpty {
            writer.key("details")
            details.write(to: &writer)
        }
        writer.key("durationMs")
        writer.int64String(durationMs)
        writer.key("height")
        writer.number(height)
        writer.key("movie")
        Self.write(movie, to: &writer)
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("subject")
        writer.string(subject)
        writer.key("thumbnail")
        Self.write(thumbnail, to: &writer)
        writer.key("type")
        writer.string(Self.type)
        writer.key("uploadId")
        writer.string(uploadId)
        writer.key("urlsExpireAt")
        writer.int64String(urlsExpireAt)
        writer.key("width")
        writer.number(width)
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ object: Object, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("bytes")
        writer.int64String(object.bytes)
        writer.key("contentType")
        writer.string(object.contentType)
        writer.key("url")
        writer.string(object.url)
        writer.endObject()
    }
}

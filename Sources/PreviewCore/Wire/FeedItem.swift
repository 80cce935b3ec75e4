public import ProtobufWire

/// One entry of the feed; also the answer to a commit
/// (`message FeedItem` in proto/stream_preview.proto).
public struct FeedItem: Sendable, Equatable {
    /// Field 1.
    public var streamId: Int64
    /// Field 2.
    public var movieUrl: String
    /// Field 3.
    public var thumbnailUrl: String
    /// Field 4.
    public var likes: Int64
    /// Field 5: whether the caller likes this stream.
    public var liked: Bool
    /// Field 6: whether the caller has seen this preview version.
    public var seen: Bool
    /// Field 7.
    public var previewVersion: Int64
    /// Field 8: commit time of this preview version (Unix seconds).
    public var updatedAt: Int64
    /// Field 9: updatedAt + the preview TTL; the preview leaves the feed then.
    public var expiresAt: Int64
    /// Field 10: clip length in milliseconds (MP4 `mvhd`), for timing autoplay; 0 = unknown.
    public var durationMs: Int64
    /// Field 11: width of the clip's first video track in pixels (`tkhd`), for layout; 0 = unknown.
    public var width: Int32
    /// Field 12: height of the clip's first video track in pixels; 0 = unknown.
    public var height: Int32
    /// Field 13: whether `moov` precedes `mdat`, so playback can start while downloading;
    /// false also for previews committed before the field existed.
    public var fastStart: Bool
    /// Field 14: what the operator's commit hook attached to this preview (`PreviewLabels`),
    /// such as a rating; empty for most, and then not written at all in JSON or protobuf.
    public var labels: [String: String]
    /// Field 15: whether the preview is past its refresh time (`updatedAt` + `--preview-refresh`):
    /// a fresh clip was due and has not come.
    public var stale: Bool
    /// Field 16: the stream's tracking link (`/s/{streamId}` on the server's public URL): what
    /// a viewer copies or shares, counting who follows it.
    public var shareUrl: String
    /// Field 17: the clip's GET URL that makes a browser save it (`Content-Disposition:
    /// attachment` with a file name), signed like `movieUrl`.
    public var downloadUrl: String
    /// Field 18: the clip's video codec as RFC 6381 has it (`avc1.42E01E`), for
    /// `MediaSource.isTypeSupported` or `canPlayType` before loading; empty when unknown (a
    /// preview committed before the field existed).
    public var codecs: String
    /// Fields 19-23 (`title`, `category`, `language`, `mature`, `altText`): what the streamer
    /// said of the preview (`PreviewDescription`); empty and false when not said.
    public var details: PreviewDescription

    public init(
        streamId: Int64 = 0, movieUrl: String = "", thumbnailUrl: String = "", likes: Int64 = 0,
        liked: Bool = false, seen: Bool = false, previewVersion: Int64 = 0, updatedAt: Int64 = 0,
        expiresAt: Int64 = 0, durationMs: Int64 = 0, width: Int32 = 0, height: Int32 = 0, fastStart: Bool = false,
        labels: [String: String] = [:], stale: Bool = false, shareUrl: String = "", downloadUrl: String = "",
        codecs: String = "", details: PreviewDescription = PreviewDescription()
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
        self.labels = labels
        self.stale = stale
        self.shareUrl = shareUrl
        self.downloadUrl = downloadUrl
        self.codecs = codecs
        self.details = details
    }
}

extension FeedItem: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        var reader = ProtoReader(bytes)
        try self.init(reading: &reader)
    }

    /// Reads fields until the reader's end; used directly for items embedded in `FeedResponse`.
    init(reading reader: inout ProtoReader) throws(WireError) {
        self.init()
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): streamId = try reader.readInt64(field)
            case (2, .lengthDelimited): movieUrl = try reader.readString(field, name: "movieUrl")
            case (3, .lengthDelimited): thumbnailUrl = try reader.readString(field, name: "thumbnailUrl")
            case (4, .varint): likes = try reader.readInt64(field)
            case (5, .varint): liked = try reader.readBool(field)
            case (6, .varint): seen = try reader.readBool(field)
            case (7, .varint): previewVersion = try reader.readInt64(field)
            case (8, .varint): updatedAt = try reader.readInt64(field)
            case (9, .varint): expiresAt = try reader.readInt64(field)
            case (10, .varint): durationMs = try reader.readInt64(field)
            case (11, .varint): width = try reader.readInt32(field)
            case (12, .varint): height = try reader.readInt32(field)
            case (13, .varint): fastStart = try reader.readBool(field)
            case (14, .lengthDelimited):
                let (key, value) = try reader.readStringMapEntry(field, name: "labels")
                labels[key] = value
            case (15, .varint): stale = try reader.readBool(field)
            case (16, .lengthDelimited): shareUrl = try reader.readString(field, name: "shareUrl")
            case (17, .lengthDelimited): downloadUrl = try reader.readString(field, name: "downloadUrl")
            case (18, .lengthDelimited): codecs = try reader.readString(field, name: "codecs")
            default:
                if try !details.read(field, from: &reader, firstField: 19) { try reader.skip(field) }
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        writer.writeString(field: 2, movieUrl)
        writer.writeString(field: 3, thumbnailUrl)
        writer.writeInt64(field: 4, likes)
        writer.writeBool(field: 5, liked)
        writer.writeBool(field: 6, seen)
        writer.writeInt64(field: 7, previewVersion)
        writer.writeInt64(field: 8, updatedAt)
        writer.writeInt64(field: 9, expiresAt)
        writer.writeInt64(field: 10, durationMs)
        writer.writeInt32(field: 11, width)
        writer.writeInt32(field: 12, height)
        writer.writeBool(field: 13, fastStart)
        writer.writeStringMap(field: 14, labels)
        writer.writeBool(field: 15, stale)
        writer.writeString(field: 16, shareUrl)
        writer.writeString(field: 17, downloadUrl)
        writer.writeString(field: 18, codecs)
        details.write(to: &writer, firstField: 19)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        self.init(dto: try WireJSON.decode(DTO.self, from: bytes))
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 512)
        write(to: &writer)
        return writer.bytes
    }

    /// Writes the item's JSON object (also as an element of `FeedResponse.items`).
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("altText")
        writer.string(details.altText)
        writer.key("category")
        writer.string(details.category)
        writer.key("codecs")
        writer.string(codecs)
        writer.key("downloadUrl")
        writer.string(downloadUrl)
        writer.key("durationMs")
        writer.int64String(durationMs)
        writer.key("expiresAt")
        writer.int64String(expiresAt)
        writer.key("fastStart")
        writer.bool(fastStart)
        writer.key("height")
        writer.number(height)
        if !labels.isEmpty {
            writer.key("labels")
            writer.stringMap(labels)
        }
        writer.key("language")
        writer.string(details.language)
        writer.key("liked")
        writer.bool(liked)
        writer.key("likes")
        writer.int64String(likes)
        writer.key("mature")
        writer.bool(details.mature)
        writer.key("movieUrl")
        writer.string(movieUrl)
        writer.key("previewVersion")
        writer.int64String(previewVersion)
        writer.key("seen")
        writer.bool(seen)
        writer.key("shareUrl")
        writer.string(shareUrl)
        writer.key("stale")
        writer.bool(stale)
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("thumbnailUrl")
        writer.string(thumbnailUrl)
        writer.key("title")
        writer.string(details.title)
        writer.key("updatedAt")
        writer.int64String(updatedAt)
        writer.key("width")
        writer.number(width)
        writer.endObject()
    }

    init(dto: DTO) {
        self.init(
            streamId: dto.streamId?.value ?? 0, movieUrl: dto.movieUrl ?? "", thumbnailUrl: dto.thumbnailUrl ?? "",
            likes: dto.likes?.value ?? 0, liked: dto.liked ?? false, seen: dto.seen ?? false,
            previewVersion: dto.previewVersion?.value ?? 0, updatedAt: dto.updatedAt?.value ?? 0,
            expiresAt: dto.expiresAt?.value ?? 0, durationMs: dto.durationMs?.value ?? 0, width: dto.width?.value ?? 0,
            height: dto.height?.value ?? 0, fastStart: dto.fastStart ?? false, labels: dto.labels ?? [:],
            stale: dto.stale ?? false, shareUrl: dto.shareUrl ?? "", downloadUrl: dto.downloadUrl ?? "",
            codecs: dto.codecs ?? "", details: dto.details)
    }

    var dto: DTO {
        DTO(
            streamId: JSONInt64(streamId), movieUrl: movieUrl, thumbnailUrl: thumbnailUrl, likes: JSONInt64(likes),
            liked: liked, seen: seen, previewVersion: JSONInt64(previewVersion), updatedAt: JSONInt64(updatedAt),
            expiresAt: JSONInt64(expiresAt), durationMs: JSONInt64(durationMs), width: JSONInt32(width),
            height: JSONInt32(height), fastStart: fastStart, labels: labels.isEmpty ? nil : labels, stale: stale,
            shareUrl: shareUrl, downloadUrl: downloadUrl, codecs: codecs, title: details.title,
            category: details.category, language: details.language, mature: details.mature, altText: details.altText)
    }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var streamId: JSONInt64?
        var movieUrl: String?
        var thumbnailUrl: String?
        var likes: JSONInt64?
        var liked: Bool?
        var seen: Bool?
        var previewVersion: JSONInt64?
        var updatedAt: JSONInt64?
        var expiresAt: JSONInt64?
        var durationMs: JSONInt64?
        var width: JSONInt32?
        var height: JSONInt32?
        var fastStart: Bool?
        /// Absent when empty, as `jsonBytes` writes it.
        var labels: [String: String]?
        var stale: Bool?
        var shareUrl: String?
        var downloadUrl: String?
        var codecs: String?
        var title: String?
        var category: String?
        var language: String?
        var mature: Bool?
        var altText: String?

        enum CodingKeys: String, CodingKey {
            case streamId, movieUrl, thumbnailUrl, likes, liked, seen, previewVersion, updatedAt, expiresAt
            case durationMs, width, height, fastStart, labels
            case stale, shareUrl, downloadUrl, codecs, title, category, language, mature, altText
        }

        var details: PreviewDescription {
            PreviewDescription(
                title: title ?? "", category: category ?? "", language: language ?? "", mature: mature ?? false,
                altText: altText ?? "")
        }
    }
}

public import ProtobufWire

/// POST /api/preview/post: ask for two signed PUT URLs
/// (`message StreamPreviewPostRequest` in proto/stream_preview.proto).
public struct StreamPreviewPostRequest: Sendable, Equatable {
    /// Field 1.
    public var streamId: Int64
    /// Field 2: declared movie size in bytes; 0 means not declared.
    public var movieBytes: Int64
    /// Field 3: declared thumbnail size in bytes; 0 means not declared.
    public var thumbnailBytes: Int64
    /// Field 4: empty means the default (video/mp4).
    public var movieContentType: String
    /// Field 5: empty means the default (image/jpeg).
    public var thumbnailContentType: String
    /// Field 6: where the stream's tracking link sends browsers (`WatchURL`); empty leaves the
    /// stream's watch URL as it is.
    public var watchUrl: String
    /// Fields 7-11 (`title`, `category`, `language`, `mature`, `altText`): what the streamer says
    /// of the preview, as sent (`PreviewDescription.validated` checks it); empty and false when
    /// not said.
    public var details: PreviewDescription

    public init(
        streamId: Int64 = 0, movieBytes: Int64 = 0, thumbnailBytes: Int64 = 0,
        movieContentType: String = "", thumbnailContentType: String = "", watchUrl: String = "",
        details: PreviewDescription = PreviewDescription()
    ) {
        self.streamId = streamId
        self.movieBytes = movieBytes
        self.thumbnailBytes = thumbnailBytes
        self.movieContentType = movieContentType
        self.thumbnailContentType = thumbnailContentType
        self.watchUrl = watchUrl
        self.details = details
    }
}

extension StreamPreviewPostRequest: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): streamId = try reader.readInt64(field)
            case (2, .varint): movieBytes = try reader.readInt64(field)
            case (3, .varint): thumbnailBytes = try reader.readInt64(field)
            case (4, .lengthDelimited): movieContentType = try reader.readString(field, name: "movieContentType")
            case (5, .lengthDelimited):
                thumbnailContentType = try reader.readString(field, name: "thumbnailContentType")
            case (6, .lengthDelimited): watchUrl = try reader.readString(field, name: "watchUrl")
            default:
                if try !details.read(field, from: &reader, firstField: 7) { try reader.skip(field) }
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        writer.writeInt64(field: 2, movieBytes)
        writer.writeInt64(field: 3, thumbnailBytes)
        writer.writeString(field: 4, movieContentType)
        writer.writeString(field: 5, thumbnailContentType)
        writer.writeString(field: 6, watchUrl)
        details.write(to: &writer, firstField: 7)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        self.init(dto: try WireJSON.decode(DTO.self, from: bytes))
    }

    init(dto: DTO) {
        self.init(
            streamId: dto.streamId?.value ?? 0, movieBytes: dto.movieBytes?.value ?? 0,
            thumbnailBytes: dto.thumbnailBytes?.value ?? 0, movieContentType: dto.movieContentType ?? "",
            thumbnailContentType: dto.thumbnailContentType ?? "", watchUrl: dto.watchUrl ?? "",
            details: PreviewDescription(
                title: dto.title ?? "", category: dto.category ?? "", language: dto.language ?? "",
                mature: dto.mature ?? false, altText: dto.altText ?? ""))
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("altText")
        writer.string(details.altText)
        writer.key("category")
        writer.string(details.category)
        writer.key("language")
        writer.string(details.language)
        writer.key("mature")
        writer.bool(details.mature)
        writer.key("movieBytes")
        writer.int64String(movieBytes)
        writer.key("movieContentType")
        writer.string(movieContentType)
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("thumbnailBytes")
        writer.int64String(thumbnailBytes)
        writer.key("thumbnailContentType")
        writer.string(thumbnailContentType)
        writer.key("title")
        writer.string(details.title)
        writer.key("watchUrl")
        writer.string(watchUrl)
        writer.endObject()
        return writer.bytes
    }

    /// The DTO of `JSONEncoder`/`JSONDecoder`, which decide the bodies the fast reader leaves
    /// to them, and which the tests compare `jsonBytes()` with.
    var dto: DTO {
        DTO(
            streamId: JSONInt64(streamId), movieBytes: JSONInt64(movieBytes),
            thumbnailBytes: JSONInt64(thumbnailBytes), movieContentType: movieContentType,
            thumbnailContentType: thumbnailContentType, watchUrl: watchUrl, title: details.title,
            category: details.category, language: details.language, mature: details.mature,
            altText: details.altText)
    }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var streamId: JSONInt64?
        var movieBytes: JSONInt64?
        var thumbnailBytes: JSONInt64?
        var movieContentType: String?
        var thumbnailContentType: String?
        var watchUrl: String?
        var title: String?
        var category: String?
        var language: String?
        var mature: Bool?
        var altText: String?

        enum CodingKeys: String, CodingKey {
            case streamId, movieBytes, thumbnailBytes, movieContentType, thumbnailContentType, watchUrl
            case title, category, language, mature, altText
        }
    }
}

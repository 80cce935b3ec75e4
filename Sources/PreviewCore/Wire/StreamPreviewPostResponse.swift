public import ProtobufWire
/// The answer to POST /api/preview/post
/// (`message StreamPreviewPostResponse` in proto/stream_preview.proto).
public struct StreamPreviewPostResponse: Sendable, Equatable {
    /// Field 1: signed PUT URL for the movie.
    public var movieBodyUrl: String
    /// Field 2: signed PUT URL for the thumbnail.
    public var movieThumbnailBodyUrl: String
    /// Field 3.
    public var uploadId: String
    /// Field 4: Unix seconds when both URLs stop working.
    public var expiresAt: Int64
    /// Field 5: the exact headers the client must send with the movie PUT.
    public var movieHeaders: [String: String]
    /// Field 6: the exact headers the client must send with the thumbnail PUT.
    public var thumbnailHeaders: [String: String]
    /// Field 7: seconds after the commit at which a fresh preview is due (`--preview-refresh`);
    /// a duration, so clients need no synchronised clock. 0: not said.
    public var refreshAfter: Int64

    public init(
        movieBodyUrl: String = "", movieThumbnailBodyUrl: String = "", uploadId: String = "",
        expiresAt: Int64 = 0, movieHeaders: [String: String] = [:], thumbnailHeaders: [String: String] = [:],
        refreshAfter: Int64 = 0
    ) {
        self.movieBodyUrl = movieBodyUrl
        self.movieThumbnailBodyUrl = movieThumbnailBodyUrl
        self.uploadId = uploadId
        self.expiresAt = expiresAt
        self.movieHeaders = movieHeaders
        self.thumbnailHeaders = thumbnailHeaders
        self.refreshAfter = refreshAfter
    }
}

extension StreamPreviewPostResponse: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): movieBodyUrl = try reader.readString(field, name: "movieBodyUrl")
            case (2, .lengthDelimited):
                movieThumbnailBodyUrl = try reader.readString(field, name: "movieThumbnailBodyUrl")
            case (3, .lengthDelimited): uploadId = try reader.readString(field, name: "uploadId")
            case (4, .varint): expiresAt = try reader.readInt64(field)
            case (5, .lengthDelimited):
                let (key, value) = try reader.readStringMapEntry(field, name: "movieHeaders")
                movieHeaders[key] = value
            case (6, .lengthDelimited):
                let (key, value) = try reader.readStringMapEntry(field, name: "thumbnailHeaders")
                thumbnailHeaders[key] = value
            case (7, .varint): refreshAfter = try reader.readInt64(field)
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(field: 1, movieBodyUrl)
        writer.writeString(field: 2, movieThumbnailBodyUrl)
        writer.writeString(field: 3, uploadId)
        writer.writeInt64(field: 4, expiresAt)
        writer.writeStringMap(field: 5, movieHeaders)
        writer.writeStringMap(field: 6, thumbnailHeaders)
        writer.writeInt64(field: 7, refreshAfter)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        let dto = try WireJSON.decode(DTO.self, from: bytes)
        self.init(
            movieBodyUrl: dto.movieBodyUrl ?? "", movieThumbnailBodyUrl: dto.movieThumbnailBodyUrl ?? "",
            uploadId: dto.uploadId ?? "", expiresAt: dto.expiresAt?.value ?? 0,
            movieHeaders: dto.movieHeaders ?? [:], thumbnailHeaders: dto.thumbnailHeaders ?? [:],
            refreshAfter: dto.refreshAfter?.value ?? 0)
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        writer.beginObject()
        writer.key("expiresAt")
        writer.int64String(expiresAt)
        writer.key("movieBodyUrl")
        writer.string(movieBodyUrl)
        writer.key("movieHeaders")
        writer.stringMap(movieHeaders)
        writer.key("movieThumbnailBodyUrl")
        writer.string(movieThumbnailBodyUrl)
        writer.key("refreshAfter")
        writer.int64String(refreshAfter)
        writer.key("thumbnailHeaders")
        writer.stringMap(thumbnailHeaders)
        writer.key("uploadId")
        writer.string(uploadId)
        writer.endObject()
        return writer.bytes
    }

    /// The `JSONEncoder`/`JSONDecoder` shape (the reference the tests compare with).
    var dto: DTO {
        DTO(
            movieBodyUrl: movieBodyUrl, movieThumbnailBodyUrl: movieThumbnailBodyUrl, uploadId: uploadId,
            expiresAt: JSONInt64(expiresAt), movieHeaders: movieHeaders, thumbnailHeaders: thumbnailHeaders,
            refreshAfter: JSONInt64(refreshAfter))
    }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var movieBodyUrl: String?
        var movieThumbnailBodyUrl: String?
        var uploadId: String?
        var expiresAt: JSONInt64?
        var movieHeaders: [String: String]?
        var thumbnailHeaders: [String: String]?
        var refreshAfter: JSONInt64?

        enum CodingKeys: String, CodingKey {
            case movieBodyUrl, movieThumbnailBodyUrl, uploadId, expiresAt, movieHeaders, thumbnailHeaders
            case refreshAfter
        }
    }
}

public import ProtobufWire
/// POST /api/preview/commit: verify the uploaded objects and publish them
/// (`message StreamPreviewCommitRequest` in proto/stream_preview.proto).
public struct StreamPreviewCommitRequest: Sendable, Equatable {
    /// Field 1.
    public var streamId: Int64
    /// Field 2.
    public var uploadId: String

    public init(streamId: Int64 = 0, uploadId: String = "") {
        self.streamId = streamId
        self.uploadId = uploadId
    }
}

extension StreamPreviewCommitRequest: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): streamId = try reader.readInt64(field)
            case (2, .lengthDelimited): uploadId = try reader.readString(field, name: "uploadId")
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, streamId)
        writer.writeString(field: 2, uploadId)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        self.init(dto: try WireJSON.decode(DTO.self, from: bytes))
    }

    init(dto: DTO) {
        self.init(streamId: dto.streamId?.value ?? 0, uploadId: dto.uploadId ?? "")
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("streamId")
        writer.int64String(streamId)
        writer.key("uploadId")
        writer.string(uploadId)
        writer.endObject()
        return writer.bytes
    }

    /// The `JSONEncoder`/`JSONDecoder` shape (the reference the tests compare with).
    var dto: DTO { DTO(streamId: JSONInt64(streamId), uploadId: uploadId) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var streamId: JSONInt64?
        var uploadId: String?

        enum CodingKeys: String, CodingKey {
            case streamId, uploadId
        }
    }
}

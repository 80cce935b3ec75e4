public import ProtobufWire
/// The answer to POST and DELETE /api/streams/{id}/like
/// (`message LikeResponse` in proto/stream_preview.proto).
public struct LikeResponse: Sendable, Equatable {
    /// Field 1: the stream's like count after the change.
    public var likes: Int64
    /// Field 2: whether the caller now likes the stream.
    public var liked: Bool

    public init(likes: Int64 = 0, liked: Bool = false) {
        self.likes = likes
        self.liked = liked
    }
}

extension LikeResponse: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .varint): likes = try reader.readInt64(field)
            case (2, .varint): liked = try reader.readBool(field)
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeInt64(field: 1, likes)
        writer.writeBool(field: 2, liked)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        let dto = try WireJSON.decode(DTO.self, from: bytes)
        self.init(likes: dto.likes?.value ?? 0, liked: dto.liked ?? false)
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        writer.key("liked")
        writer.bool(liked)
        writer.key("likes")
        writer.int64String(likes)
        writer.endObject()
        return writer.bytes
    }

    /// The `JSONEncoder`/`JSONDecoder` shape (the reference the tests compare with).
    var dto: DTO { DTO(likes: JSONInt64(likes), liked: liked) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var likes: JSONInt64?
        var liked: Bool?

        enum CodingKeys: String, CodingKey {
            case likes, liked
        }
    }
}

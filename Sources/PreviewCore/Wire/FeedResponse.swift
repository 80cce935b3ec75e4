public import ProtobufWire
/// GET /api/feed: the live streams in play order
/// (`message FeedResponse` in proto/stream_preview.proto).
public struct FeedResponse: Sendable, Equatable {
    /// Field 1 (`repeated FeedItem`), in play order.
    public var items: [FeedItem]

    public init(items: [FeedItem] = []) {
        self.items = items
    }
}

extension FeedResponse: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited):
                var itemReader = try reader.readMessage(field)
                items.append(try FeedItem(reading: &itemReader))
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        for item in items {
            writer.writeMessage(field: 1, item.protobufBytes())
        }
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        let dto = try WireJSON.decode(DTO.self, from: bytes)
        self.init(items: (dto.items ?? []).map(FeedItem.init(dto:)))
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + 512 * items.count)
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items {
            writer.element()
            item.write(to: &writer)
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// The `JSONEncoder`/`JSONDecoder` shape (the reference the tests compare with).
    var dto: DTO { DTO(items: items.map(\.dto)) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var items: [FeedItem.DTO]?

        enum CodingKeys: String, CodingKey {
            case items
        }
    }
}

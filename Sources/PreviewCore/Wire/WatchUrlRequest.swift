public import ProtobufWire
/// PUT /api/streams/{streamId}/watch: sets or (empty) clears the stream's watch URL
/// (`message WatchUrlRequest` in proto/stream_preview.proto).
public struct WatchUrlRequest: Sendable, Equatable {
    /// Field 1.
    public var watchUrl: String

    public init(watchUrl: String = "") {
        self.watchUrl = watchUrl
    }
}

extension WatchUrlRequest: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): watchUrl = try reader.readString(field, name: "watchUrl")
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(field: 1, watchUrl)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        self.init(watchUrl: try WireJSON.decode(DTO.self, from: bytes).watchUrl ?? "")
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("watchUrl")
        writer.string(watchUrl)
        writer.endObject()
        return writer.bytes
    }

    var dto: DTO { DTO(watchUrl: watchUrl) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var watchUrl: String?
    }
}

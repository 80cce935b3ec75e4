public import ProtobufWire
/// The body of every error, on every route
/// (`message ErrorResponse` in proto/stream_preview.proto).
public struct ErrorResponse: Sendable, Equatable {
    /// Field 1: stable machine-readable code, e.g. "invalid_argument".
    public var code: String
    /// Field 2: human-readable explanation.
    public var message: String
    /// Field 3: what the error is about, where one thing is (a field name, "movie", "thumbnail").
    public var target: String
    /// Field 4: the request ID, as in the X-Request-Id response header.
    public var requestId: String

    public init(code: String = "", message: String = "", target: String = "", requestId: String = "") {
        self.code = code
        self.message = message
        self.target = target
        self.requestId = requestId
    }
}

extension ErrorResponse: WireMessage {
    public init(protobuf bytes: [UInt8]) throws(WireError) {
        self.init()
        var reader = ProtoReader(bytes)
        while let field = try reader.nextField() {
            switch (field.number, field.wireType) {
            case (1, .lengthDelimited): code = try reader.readString(field, name: "code")
            case (2, .lengthDelimited): message = try reader.readString(field, name: "message")
            case (3, .lengthDelimited): target = try reader.readString(field, name: "target")
            case (4, .lengthDelimited): requestId = try reader.readString(field, name: "requestId")
            default: try reader.skip(field)
            }
        }
    }

    public func protobufBytes() -> [UInt8] {
        var writer = ProtoWriter()
        writer.writeString(field: 1, code)
        writer.writeString(field: 2, message)
        writer.writeString(field: 3, target)
        writer.writeString(field: 4, requestId)
        return writer.bytes
    }

    public init(json bytes: [UInt8]) throws(WireError) {
        let dto = try WireJSON.decode(DTO.self, from: bytes)
        self.init(
            code: dto.code ?? "", message: dto.message ?? "", target: dto.target ?? "", requestId: dto.requestId ?? "")
    }

    public func jsonBytes() -> [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("code")
        writer.string(code)
        writer.key("message")
        writer.string(message)
        writer.key("requestId")
        writer.string(requestId)
        writer.key("target")
        writer.string(target)
        writer.endObject()
        return writer.bytes
    }

    /// The `JSONEncoder`/`JSONDecoder` shape (the reference the tests compare with).
    var dto: DTO { DTO(code: code, message: message, target: target, requestId: requestId) }

    /// The proto3 JSON shape; absent or `null` keys decode as defaults.
    struct DTO: Codable {
        var code: String?
        var message: String?
        var target: String?
        var requestId: String?

        enum CodingKeys: String, CodingKey {
            case code, message, target, requestId
        }
    }
}

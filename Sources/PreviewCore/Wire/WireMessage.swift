public import ProtobufWire
/// A message of `proto/stream_preview.proto`, readable and writable both as protobuf
/// and as its proto3 JSON mapping.
public protocol WireMessage: Sendable {
    /// Decodes protobuf bytes; unknown fields are skipped, hostile input throws.
    init(protobuf bytes: [UInt8]) throws(WireError)
    /// Encodes as protobuf: default values omitted, fields in number order, maps key-sorted.
    func protobufBytes() -> [UInt8]
    /// Decodes a proto3 JSON object; `null` means default, unknown keys are ignored.
    init(json bytes: [UInt8]) throws(WireError)
    /// Encodes as proto3 JSON: every field written, int64 as strings, keys sorted.
    func jsonBytes() -> [UInt8]
}

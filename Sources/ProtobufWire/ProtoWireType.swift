/// The three low bits of a protobuf tag (protobuf encoding spec, "Message Structure").
public enum ProtoWireType: UInt8, Sendable {
    case varint = 0
    case fixed64 = 1
    case lengthDelimited = 2
    /// Deprecated groups: skipped with their matching end tag, never produced.
    case startGroup = 3
    case endGroup = 4
    case fixed32 = 5
}

/// One decoded tag: the field number and how its value is encoded.
public struct ProtoField: Sendable, Equatable {
    public var number: Int
    public var wireType: ProtoWireType

    public init(number: Int, wireType: ProtoWireType) {
        self.number = number
        self.wireType = wireType
    }
}

/// ZigZag mapping for `sint32`/`sint64` (protobuf encoding spec, "Signed Integers").
public enum ZigZag {
    public static func encode(_ value: Int64) -> UInt64 {
        UInt64(bitPattern: (value << 1) ^ (value >> 63))
    }

    public static func decode(_ value: UInt64) -> Int64 {
        Int64(bitPattern: (value >> 1) ^ (0 &- (value & 1)))
    }
}

/// Appends protobuf-encoded fields to a byte buffer.
///
/// The `write...(field:_:)` helpers follow proto3: a field holding its default value
/// (0, false, "", empty map) is omitted, as `protoc`-generated code does. Callers write
/// fields in field-number order, so output is deterministic and byte-equal to protoc's.
public struct ProtoWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    // MARK: Raw values

    public mutating func writeVarint(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    public mutating func writeTag(field: Int, wireType: ProtoWireType) {
        precondition(field > 0 && field < 1 << 29, "protobuf field numbers are 1...2^29-1")
        writeVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    public mutating func writeFixed32(_ value: UInt32) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    public mutating func writeFixed64(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    public mutating func writeLengthDelimited(_ payload: [UInt8]) {
        writeVarint(UInt64(payload.count))
        bytes.append(contentsOf: payload)
    }

    // MARK: Fields (proto3: defaults omitted)

    /// `int64`: a varint of the two's complement value, so negatives take 10 bytes.
    public mutating func writeInt64(field: Int, _ value: Int64) {
        guard value != 0 else { return }
        writeTag(field: field, wireType: .varint)
        writeVarint(UInt64(bitPattern: value))
    }

    /// `int32`: the value sign-extended to 64 bits, so negatives take 10 bytes (as `int64`).
    public mutating func writeInt32(field: Int, _ value: Int32) {
        writeInt64(field: field, Int64(value))
    }

    /// `sint64`: ZigZag varint.
    public mutating func writeSInt64(field: Int, _ value: Int64) {
        guard value != 0 else { return }
        writeTag(field: field, wireType: .varint)
        writeVarint(ZigZag.encode(value))
    }

    /// A `double` field (wire type fixed64); 0 is the default, left out (a negative zero is not).
    public mutating func writeDouble(field: Int, _ value: Double) {
        guard value.bitPattern != 0 else { return }
        writeTag(field: field, wireType: .fixed64)
        writeFixed64(value.bitPattern)
    }

    public mutating func writeBool(field: Int, _ value: Bool) {
        guard value else { return }
        writeTag(field: field, wireType: .varint)
        writeVarint(1)
    }

    public mutating func writeString(field: Int, _ value: String) {
        guard !value.isEmpty else { return }
        writeTag(field: field, wireType: .lengthDelimited)
        writeLengthDelimited(Array(value.utf8))
    }

    /// An embedded message; always written, even when empty, since it is present
    /// (used for elements of repeated message fields).
    public mutating func writeMessage(field: Int, _ encoded: [UInt8]) {
        writeTag(field: field, wireType: .lengthDelimited)
        writeLengthDelimited(encoded)
    }

    /// `map<string, string>`: one entry message {key = 1, value = 2} per pair, in
    /// UTF-8 byte order of the keys (as protobuf's deterministic serialization).
    /// Key and value are both written in every entry, as protoc-generated code does.
    public mutating func writeStringMap(field: Int, _ map: [String: String]) {
        let keys = map.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        for key in keys {
            var entry = ProtoWriter()
            entry.writeTag(field: 1, wireType: .lengthDelimited)
            entry.writeLengthDelimited(Array(key.utf8))
            entry.writeTag(field: 2, wireType: .lengthDelimited)
            entry.writeLengthDelimited(Array((map[key] ?? "").utf8))
            writeMessage(field: field, entry.bytes)
        }
    }
}

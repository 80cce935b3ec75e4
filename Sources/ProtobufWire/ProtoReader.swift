/// Reads protobuf fields from a byte buffer, defensively: every length is checked
/// against the bytes that remain before anything is sliced or allocated, and every
/// problem is a `WireError` rather than a trap.
///
/// Usage: `while let field = try reader.nextField() { switch ... }`, calling one
/// `read...` or `skip` per field.
public struct ProtoReader: Sendable {
    private let bytes: [UInt8]
    private var index: Int
    private let end: Int

    /// Group nesting allowed when skipping deprecated groups (protobuf's own recursion limit is 100).
    static let maxGroupDepth = 100

    public init(_ bytes: [UInt8]) {
        self.init(bytes, from: bytes.startIndex, to: bytes.endIndex)
    }

    private init(_ bytes: [UInt8], from start: Int, to end: Int) {
        self.bytes = bytes
        self.index = start
        self.end = end
    }

    public var isAtEnd: Bool { index >= end }

    /// The next tag, or nil at the end of the buffer. Field number 0, numbers past
    /// 2^29-1 and wire types 6 and 7 are malformed.
    public mutating func nextField() throws(WireError) -> ProtoField? {
        guard !isAtEnd else { return nil }
        let tag = try readRawVarint(what: "tag")
        guard tag <= UInt64(UInt32.max) else { throw .malformed("tag out of range") }
        let number = Int(tag >> 3)
        guard number > 0 else { throw .malformed("field number 0") }
        guard let wireType = ProtoWireType(rawValue: UInt8(tag & 7)) else {
            throw .malformed("invalid wire type \(tag & 7) in field \(number)")
        }
        return ProtoField(number: number, wireType: wireType)
    }

    // MARK: Typed values

    /// `int64`: any varint, reinterpreted as two's complement.
    public mutating func readInt64(_ field: ProtoField) throws(WireError) -> Int64 {
        Int64(bitPattern: try readRawVarint(what: "varint in field \(field.number)"))
    }

    /// `int32`: any varint, its low 32 bits as two's complement (as protobuf's parsers do).
    public mutating func readInt32(_ field: ProtoField) throws(WireError) -> Int32 {
        Int32(truncatingIfNeeded: try readRawVarint(what: "varint in field \(field.number)"))
    }

    public mutating func readSInt64(_ field: ProtoField) throws(WireError) -> Int64 {
        ZigZag.decode(try readRawVarint(what: "varint in field \(field.number)"))
    }

    /// `bool`: any nonzero varint is true.
    public mutating func readBool(_ field: ProtoField) throws(WireError) -> Bool {
        try readRawVarint(what: "varint in field \(field.number)") != 0
    }

    /// `string`: length-delimited, must be valid UTF-8 (proto3).
    public mutating func readString(_ field: ProtoField, name: String) throws(WireError) -> String {
        let range = try readLengthDelimitedRange(field)
        guard let text = String(validating: bytes[range], as: UTF8.self) else {
            throw .invalidField(name: name, message: "not valid UTF-8")
        }
        return text
    }

    /// An embedded message: a reader over its bytes, sharing this buffer.
    public mutating func readMessage(_ field: ProtoField) throws(WireError) -> ProtoReader {
        let range = try readLengthDelimitedRange(field)
        return ProtoReader(bytes, from: range.lowerBound, to: range.upperBound)
    }

    /// One entry of a `map<string, string>` (entry message {key = 1, value = 2}).
    /// A missing key or value is the empty string; unknown entry fields are skipped.
    public mutating func readStringMapEntry(_ field: ProtoField, name: String) throws(WireError) -> (String, String) {
        var entry = try readMessage(field)
        var key = "", value = ""
        while let inner = try entry.nextField() {
            switch (inner.number, inner.wireType) {
            case (1, .lengthDelimited): key = try entry.readString(inner, name: name)
            case (2, .lengthDelimited): value = try entry.readString(inner, name: name)
            default: try entry.skip(inner)
            }
        }
        return (key, value)
    }

    public mutating func readFixed32(_ field: ProtoField) throws(WireError) -> UInt32 {
        let raw = try take(4, what: "fixed32 in field \(field.number)")
        var value: UInt32 = 0
        for (shift, byte) in zip(stride(from: 0, to: 32, by: 8), bytes[raw]) { value |= UInt32(byte) << shift }
        return value
    }

    public mutating func readFixed64(_ field: ProtoField) throws(WireError) -> UInt64 {
        let raw = try take(8, what: "fixed64 in field \(field.number)")
        var value: UInt64 = 0
        for (shift, byte) in zip(stride(from: 0, to: 64, by: 8), bytes[raw]) { value |= UInt64(byte) << shift }
        return value
    }

    // MARK: Unknown fields

    /// Skips the value of `field`, whatever its wire type. A start-group is skipped
    /// through its matching end-group; a stray end-group is malformed.
    public mutating func skip(_ field: ProtoField) throws(WireError) {
        switch field.wireType {
        case .varint: _ = try readRawVarint(what: "varint in field \(field.number)")
        case .fixed64: _ = try take(8, what: "fixed64 in field \(field.number)")
        case .fixed32: _ = try take(4, what: "fixed32 in field \(field.number)")
        case .lengthDelimited: _ = try readLengthDelimitedRange(field)
        case .startGroup: try skipGroup(startedBy: field)
        case .endGroup: throw .malformed("unexpected end-group in field \(field.number)")
        }
    }

    /// Iterative, with an explicit stack of open group numbers, so nesting cannot
    /// exhaust the call stack.
    private mutating func skipGroup(startedBy field: ProtoField) throws(WireError) {
        var open = [field.number]
        while let last = open.last {
            guard let inner = try nextField() else {
                throw .malformed("unterminated group in field \(last)")
            }
            switch inner.wireType {
            case .startGroup:
                guard open.count < Self.maxGroupDepth else { throw .malformed("groups nested too deeply") }
                open.append(inner.number)
            case .endGroup:
                guard inner.number == last else {
                    throw .malformed("end-group \(inner.number) does not match group \(last)")
                }
                open.removeLast()
            default:
                try skip(inner)
            }
        }
    }

    // MARK: Primitives

    /// A varint of at most 10 bytes (bits past 64 in the 10th byte are dropped, as
    /// protobuf's own parsers do).
    private mutating func readRawVarint(what: String) throws(WireError) -> UInt64 {
        var value: UInt64 = 0
        for byteIndex in 0..<10 {
            guard index < end else { throw .malformed("truncated \(what)") }
            let byte = bytes[index]
            index += 1
            value |= UInt64(byte & 0x7F) << (7 * UInt64(byteIndex))
            if byte & 0x80 == 0 { return value }
        }
        throw .malformed("\(what) longer than 10 bytes")
    }

    private mutating func readLengthDelimitedRange(_ field: ProtoField) throws(WireError) -> Range<Int> {
        let length = try readRawVarint(what: "length of field \(field.number)")
        guard length <= UInt64(end - index) else {
            throw .malformed("length of field \(field.number) runs past the end")
        }
        return try take(Int(length), what: "field \(field.number)")
    }

    private mutating func take(_ count: Int, what: String) throws(WireError) -> Range<Int> {
        guard count <= end - index else { throw .malformed("truncated \(what)") }
        defer { index += count }
        return index..<(index + count)
    }
}

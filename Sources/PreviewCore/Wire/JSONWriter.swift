/// Writes the proto3 JSON of the API messages and the JWT parts, byte for byte as the
/// configured `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`) writes them on Linux:
///
/// - object keys in the order of their UTF-8 bytes (callers write struct fields in that
///   order; `stringMap` sorts its keys so);
/// - strings as their UTF-8 bytes, with `"` and `\` escaped, `\b \f \n \r \t` for those
///   controls, every other byte below 0x20 as `\u00xx` (lower-case hex), and everything else
///   (`/`, DEL, non-ASCII) unescaped;
/// - integers as their decimal text, `int64` as a JSON string, no whitespace anywhere.
///
/// The differential tests compare this writer with `JSONEncoder` over generated messages.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the current object already has a member (so the next needs a comma).
    private var hasMember = false

    init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        hasMember = false
    }

    mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        hasMember = true
    }

    mutating func beginArray() {
        bytes.append(UInt8(ascii: "["))
        hasMember = false
    }

    mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        hasMember = true
    }

    /// Starts an array element (a comma before every element but the first).
    mutating func element() {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        hasMember = true
    }

    /// Writes `"name":`; `name` must need no escaping (the field names are ASCII identifiers).
    mutating func key(_ name: StaticString) {
        if hasMember { bytes.append(UInt8(ascii: ",")) }
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        hasMember = false
    }

    mutating func string(_ value: String) {
        Self.appendEscaped(value, to: &bytes)
        hasMember = true
    }

    mutating func bool(_ value: Bool) {
        bytes.append(contentsOf: value ? Self.trueBytes : Self.falseBytes)
        hasMember = true
    }

    /// A JSON number.
    mutating func number<Integer: BinaryInteger>(_ value: Integer) {
        bytes.append(contentsOf: String(value).utf8)
        hasMember = true
    }

    /// A proto3 JSON `double`: a JSON number (finite values only: the API writes no others).
    mutating func double(_ value: Double) {
        bytes.append(contentsOf: (value.isFinite ? value : 0).description.utf8)
        hasMember = true
    }

    /// A proto3 JSON `int64`: the decimal text as a JSON string.
    mutating func int64String(_ value: Int64) {
        bytes.append(UInt8(ascii: "\""))
        bytes.append(contentsOf: String(value).utf8)
        bytes.append(UInt8(ascii: "\""))
        hasMember = true
    }

    /// A JSON object of strings, keys in the order of their UTF-8 bytes.
    mutating func stringMap(_ map: [String: String]) {
        beginObject()
        for (name, value) in map.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            if hasMember { bytes.append(UInt8(ascii: ",")) }
            Self.appendEscaped(name, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            Self.appendEscaped(value, to: &bytes)
            hasMember = true
        }
        endObject()
    }

    private static let trueBytes: [UInt8] = Array("true".utf8)
    private static let falseBytes: [UInt8] = Array("false".utf8)
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// `value` as a quoted JSON string, escaped as described on the type.
    static func appendEscaped(_ value: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                switch byte {
                case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
                case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
                case 0x08: bytes.append(contentsOf: [0x5C, UInt8(ascii: "b")])
                case 0x0C: bytes.append(contentsOf: [0x5C, UInt8(ascii: "f")])
                case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
                case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
                case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
                default:
                    bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(hexDigits[Int(byte >> 4)])
                    bytes.append(hexDigits[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

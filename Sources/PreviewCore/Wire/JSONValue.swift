/// A JSON document read by `JSONValue.parse`: the only reader of the JWT parts (`JWTJSON`).
/// Request bodies are read by the one configured `JSONDecoder` (`WireJSON`) alone.
///
/// The parser accepts only plain RFC 8259 JSON and answers nil for anything else (a byte-order
/// mark or UTF-16 text, raw control characters in strings, lone surrogates, deep nesting), and
/// its callers answer nil for anything but the expected shape, duplicate keys included: what
/// this parser refuses, the token verifier refuses. It exists beside `JSONDecoder` because a
/// token must be refused where two readers could disagree (`{"alg":"HS256","alg":"none"}`),
/// and `JSONDecoder` cannot tell a duplicate key.
enum JSONValue: Equatable {
    /// Members in document order.
    case object([Member])
    case array([JSONValue])
    case string(String)
    /// The number's text, valid by RFC 8259 §6.
    case number(String)
    case bool(Bool)
    case null

    struct Member: Equatable {
        var key: String
        var value: JSONValue
    }

    /// Containers nested deeper than this are left to `JSONDecoder`.
    static let maxDepth = 32

    /// The document in `bytes`, which must be valid UTF-8; nil when it is not plain JSON.
    static func parse(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer)
            guard let value = parser.value(depth: 0) else { return nil }
            parser.skipWhitespace()
            return parser.index == buffer.count ? value : nil
        }
    }

    /// The members of an object whose keys are all different (as Swift compares strings, the
    /// way `JSONDecoder` keys its containers); nil for anything else.
    var uniqueMembers: [Member]? {
        guard case .object(let members) = self else { return nil }
        if members.count > 1 {
            var seen = Set<String>(minimumCapacity: members.count)
            for member in members where !seen.insert(member.key).inserted { return nil }
        }
        return members
    }

    /// Whether every object in this value, at any depth, has keys that are all different.
    var hasDistinctKeys: Bool {
        switch self {
        case .object:
            guard let members = uniqueMembers else { return false }
            return members.allSatisfy { $0.value.hasDistinctKeys }
        case .array(let elements): return elements.allSatisfy { $0.hasDistinctKeys }
        case .string, .number, .bool, .null: return true
        }
    }
}

/// Recursive descent over a UTF-8 buffer; every method answers nil on input that is not
/// plain JSON, leaving `index` wherever it stopped.
private struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) -> JSONValue? {
        skipWhitespace()
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return object(depth: depth + 1)
        case UInt8(ascii: "["): return array(depth: depth + 1)
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        default: return nil
        }
    }

    private mutating func object(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maxDepth else { return nil }
        index += 1
        var members: [JSONValue.Member] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), let key = string() else { return nil }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
            index += 1
            guard let value = value(depth: depth) else { return nil }
            members.append(JSONValue.Member(key: key, value: value))
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default: return nil
            }
        }
    }

    private mutating func array(depth: Int) -> JSONValue? {
        guard depth <= JSONValue.maxDepth else { return nil }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            guard let element = value(depth: depth) else { return nil }
            elements.append(element)
            skipWhitespace()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(elements)
            default: return nil
            }
        }
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) -> JSONValue? {
        let count = text.utf8CodeUnitCount
        guard bytes.count - index >= count else { return nil }
        for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return nil }
        index += count
        return value
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` (RFC 8259 §6).
    private mutating func number() -> JSONValue? {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { return nil }
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard digits() > 0 else { return nil }
        }
        return .number(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            index += 1
        }
        return index - start
    }

    /// A string from its opening quote: raw control characters, unknown escapes and
    /// surrogates that do not pair are refused.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return text
            }
            guard byte >= 0x20 else { return nil }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            index += 1
        }
        return nil
    }

    private mutating func escapedString(from start: Int) -> String? {
        var scalars = String.UnicodeScalarView()
        var runStart = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                var text = String(scalars)
                text += String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                index += 1
                return text
            }
            guard byte >= 0x20 else { return nil }
            guard byte == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            scalars.append(
                contentsOf: String(decoding: UnsafeBufferPointer(rebasing: bytes[runStart..<index]), as: UTF8.self)
                    .unicodeScalars)
            index += 1
            guard index < bytes.count else { return nil }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(Unicode.Scalar(escape))
            case UInt8(ascii: "b"): scalars.append("\u{08}")
            case UInt8(ascii: "f"): scalars.append("\u{0C}")
            case UInt8(ascii: "n"): scalars.append("\n")
            case UInt8(ascii: "r"): scalars.append("\r")
            case UInt8(ascii: "t"): scalars.append("\t")
            case UInt8(ascii: "u"):
                guard let unit = hex4() else { return nil }
                if UTF16.isLeadSurrogate(unit) {
                    guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else { return nil }
                    index += 2
                    guard let trail = hex4(), UTF16.isTrailSurrogate(trail) else { return nil }
                    scalars.append(UTF16.decode(UTF16.EncodedScalar([unit, trail])))
                } else {
                    guard let scalar = Unicode.Scalar(unit) else { return nil }
                    scalars.append(scalar)
                }
            default:
                return nil
            }
            runStart = index
        }
        return nil
    }

    private mutating func hex4() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}

import Foundation
import ProtobufWire

/// The configured Foundation coder of the proto3 JSON mapping of the API messages: the one
/// reader of request bodies, and the reference for `JSONWriter`, which writes the common
/// messages faster.
///
/// Output: sorted keys (deterministic), `/` not escaped (URLs stay readable). The messages
/// and the JWT parts are written by `JSONWriter` byte for byte as `encode` writes them (the
/// differential tests compare the two).
/// Input: the body must be UTF-8 throughout (checked first: Foundation lets bad bytes through
/// under ignored keys), then Foundation's decoder reads it; it caps nesting depth, so deep
/// garbage is a clean error, and its errors become `WireError`. (A hand-written fast path for
/// the two request bodies saved 2.5-3.6 µs a request, about 1.5% of an upload request's server
/// CPU, so it was not kept: one reader, one set of answers.)
enum WireJSON {
    static func encode<Value: Encodable>(_ value: Value) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            // The DTOs (wire messages and token parts) hold only strings, bools, integers,
            // string maps and arrays of these or of DTOs, which JSONEncoder cannot fail on
            // (no floats, no non-string keys).
            preconditionFailure("JSON encoding of a DTO failed: \(error)")
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) throws(WireError) -> Value {
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw .malformed("the JSON body is not valid UTF-8")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(bytes))
        } catch let error as WireError {
            throw error
        } catch let error as DecodingError {
            throw translate(error)
        } catch {
            throw .malformed("not valid JSON")
        }
    }

    private static func translate(_ error: DecodingError) -> WireError {
        switch error {
        case .typeMismatch(let type, let context):
            if context.codingPath.isEmpty { return .malformed("the JSON body must be an object") }
            return .invalidField(name: path(context.codingPath), message: "expected \(describe(type))")
        case .valueNotFound(let type, let context):
            if context.codingPath.isEmpty { return .malformed("the JSON body must be an object") }
            return .invalidField(name: path(context.codingPath), message: "expected \(describe(type)), found null")
        case .keyNotFound(let key, let context):
            return .invalidField(name: path(context.codingPath + [key]), message: "missing")
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return .malformed("not valid JSON") }
            return .invalidField(name: path(context.codingPath), message: "invalid value")
        @unknown default:
            return .malformed("not valid JSON")
        }
    }

    /// `items[0].likes`: JSON field names joined with dots, array indices in brackets.
    static func path(_ codingPath: [any CodingKey]) -> String {
        var text = ""
        for key in codingPath {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is [String: String].Type, is [String: Any].Type: "an object of strings"
        case is [Any].Type: "an array"
        default: "a value of another JSON type"
        }
    }
}

/// A proto3 JSON `int64`: written as a string ("42"), read from a JSON number or a
/// string of decimal digits.
///
/// Numbers are accepted when they denote an integer in range, including exponent and
/// fraction forms such as `1e3` or `5.0` (as protobuf's JSON parsers do); `1.5`, `1e-3`,
/// `1e400` and out-of-range values are rejected. Numbers go through `Decimal`, exact to
/// 38 significant digits. Strings must be plain decimal: `-?[0-9]+`.
struct JSONInt64: Codable, Sendable {
    var value: Int64

    init(_ value: Int64) { self.value = value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let parsed = Self.parse(text) else {
                throw WireError.invalidField(
                    name: WireJSON.path(decoder.codingPath), message: "not a decimal int64 string")
            }
            value = parsed
        } else if let number = try? container.decode(Decimal.self), let parsed = Int64(number.description) {
            value = parsed
        } else {
            throw WireError.invalidField(
                name: WireJSON.path(decoder.codingPath),
                message: "expected an integer between -2^63 and 2^63-1, as a JSON number or string")
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(value))
    }

    /// A decimal string in its one spelling: digits with an optional `-`, no leading zero
    /// (`"007"` is refused rather than read as 7, as a JSON number `007` is no JSON at all).
    static func parse(_ text: String) -> Int64? {
        let digits = text.utf8.first == UInt8(ascii: "-") ? text.utf8.dropFirst() : text.utf8[...]
        guard !digits.isEmpty, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            digits.count == 1 || digits.first != UInt8(ascii: "0")
        else {
            return nil
        }
        return Int64(text)
    }
}

/// A proto3 JSON `int32`: written as a JSON number, read from a JSON number or a string of
/// decimal digits (the `JSONInt64` forms), in the range of `Int32`.
struct JSONInt32: Codable, Sendable {
    var value: Int32

    init(_ value: Int32) { self.value = value }

    init(from decoder: any Decoder) throws {
        let wide = try? JSONInt64(from: decoder)
        guard let wide, let narrow = Int32(exactly: wide.value) else {
            throw WireError.invalidField(
                name: WireJSON.path(decoder.codingPath),
                message: "expected an integer between -2^31 and 2^31-1, as a JSON number or string")
        }
        value = narrow
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}

import Foundation

/// The JSON of HS256 tokens: Codable DTOs with explicit keys, written by `WireJSON.encode`
/// (sorted keys, so the same claims always give the same token).
enum JWTJSON {
    /// The JOSE header (RFC 7515 §4.1).
    struct Header: Codable {
        var alg: String?
        var kid: String?
        var typ: String?

        enum CodingKeys: String, CodingKey {
            case alg, kid, typ
        }
    }

    /// The claims set (RFC 7519 §4); every field optional so absence maps to `missingClaim`.
    struct Payload: Codable {
        var sub: String?
        var role: String?
        var streamIds: [StreamIDClaim]?
        var iat: Int64?
        var exp: Int64?

        enum CodingKeys: String, CodingKey {
            case sub, role
            case streamIds = "stream_ids"
            case iat, exp
        }
    }

    /// A stream ID read from a JSON number or a decimal string, written as a string.
    struct StreamIDClaim: Codable {
        var value: Int64

        init(_ value: Int64) { self.value = value }

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let number = try? container.decode(Int64.self), StreamID.isValid(number) {
                value = number
            } else if let text = try? container.decode(String.self), let parsed = StreamID.parse(text) {
                value = parsed
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a stream ID")
            }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(String(value))
        }
    }

    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) -> Value? {
        try? JSONDecoder().decode(type, from: Data(bytes))
    }
}

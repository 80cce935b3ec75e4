import Foundation

/// The JSON of HS256 tokens: Codable DTOs with explicit keys, written by `WireJSON.encode`
/// (sorted keys, so the same claims always give the same token).
enum JWTJSON {
    /// The JOSE header (RFC 7515 §4.1).
    struct Header: Codable {
        var alg: String?
        var kid: String?
        var typ: String?
        /// True when the header has a `crit` member (RFC 7515 §4.1.11), whatever its value;
        /// never written.
        var hasCritical = false

        enum CodingKeys: String, CodingKey {
            case alg, kid, typ
        }

        private enum ReadKeys: String, CodingKey {
            case alg, kid, typ, crit
        }

        init(alg: String?, kid: String?, typ: String?) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: ReadKeys.self)
            alg = try container.decodeIfPresent(String.self, forKey: .alg)
            kid = try container.decodeIfPresent(String.self, forKey: .kid)
            typ = try container.decodeIfPresent(String.self, forKey: .typ)
            hasCritical = container.contains(.crit)
        }
    }

    /// The claims set (RFC 7519 §4); every field optional so absence maps to `missingClaim`.
    struct Payload: Codable {
        var sub: String?
        var role: String?
        var streamIds: [StreamIDClaim]?
        var iat: Int64?
        var exp: Int64?
        /// Not before (RFC 7519 §4.1.5): optional; never written by `JWTSigner`.
        var nbf: Int64?

        enum CodingKeys: String, CodingKey {
            case sub, role
            case streamIds = "stream_ids"
            case iat, exp, nbf
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

import Foundation

/// The JSON of bearer tokens (ours; an identity provider's in `JWTJSON+Identity`): Codable DTOs
/// with explicit keys, written by `JSONWriter` (sorted keys, so the same claims always give the
/// same token) and read by `JSONObjectReader` alone.
///
/// A token part is read only when it is plain UTF-8 JSON (no byte-order mark, no UTF-16) whose
/// objects all have distinct keys, at every depth, with its times plain integers; anything
/// else is refused, never handed to a more lenient decoder. Two readers that disagree on
/// `{"alg":"HS256","alg":"none"}` or `"role":"admin","role":"viewer"` are how JWT confusion
/// attacks start, and an unusual token must not cost a slower path either.
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

    /// `JSONDecoder`'s reading of a token part: the reference the tests hold the reader to (what
    /// the reader accepts, the decoder reads the same). Never used to verify a token.
    static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8]) -> Value? {
        try? JSONDecoder().decode(type, from: Data(bytes))
    }

    /// The object of a token part, if it is plain UTF-8 JSON with distinct keys at every depth.
    static func strictObject(_ bytes: [UInt8]) -> JSONObjectReader? {
        guard let object = JSONObjectReader(bytes), object.members.allSatisfy({ $0.value.hasDistinctKeys })
        else { return nil }
        return object
    }

    /// The header of a token; nil when it is not a strict JSON object of the header's shape.
    static func header(_ bytes: [UInt8]) -> Header? {
        guard var object = strictObject(bytes) else { return nil }
        var header = Header(
            alg: object.optionalString("alg"), kid: object.optionalString("kid"), typ: object.optionalString("typ"))
        header.hasCritical = object.contains("crit")
        return object.failed ? nil : header
    }

    /// The claims of a token; nil when they are not a strict JSON object of the claims' shape
    /// (times that are not plain integers included).
    static func payload(_ bytes: [UInt8]) -> Payload? {
        guard var object = strictObject(bytes) else { return nil }
        let payload = Payload(
            sub: object.optionalString("sub"), role: object.optionalString("role"),
            streamIds: streamIDs(object.value("stream_ids"), failed: &object),
            iat: object.optionalNumber("iat"), exp: object.optionalNumber("exp"), nbf: object.optionalNumber("nbf"))
        return object.failed ? nil : payload
    }

    /// `stream_ids` as `StreamIDClaim` reads it: valid stream IDs as integers or decimal strings.
    static func streamIDs(_ value: JSONValue?, failed object: inout JSONObjectReader) -> [StreamIDClaim]? {
        switch value {
        case nil, .null?: return nil
        case .array(let elements)?:
            var ids: [StreamIDClaim] = []
            ids.reserveCapacity(elements.count)
            for element in elements {
                switch element {
                case .number(let text):
                    guard let id = JSONObjectReader.plainInteger(text), StreamID.isValid(id) else { break }
                    ids.append(StreamIDClaim(id))
                    continue
                case .string(let text):
                    guard let id = StreamID.parse(text) else { break }
                    ids.append(StreamIDClaim(id))
                    continue
                default: break
                }
                object.fail()
                return nil
            }
            return ids
        default:
            object.fail()
            return nil
        }
    }
}

extension JWTJSON.Header {
    /// `{"alg":…,"kid":…,"typ":…}`, keys sorted, absent members left out (as `JSONEncoder`
    /// leaves out nil optionals); `crit` is never written.
    func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 64)
        writer.beginObject()
        if let alg {
            writer.key("alg")
            writer.string(alg)
        }
        if let kid {
            writer.key("kid")
            writer.string(kid)
        }
        if let typ {
            writer.key("typ")
            writer.string(typ)
        }
        writer.endObject()
        return writer.bytes
    }
}

extension JWTJSON.Payload {
    /// The claims, keys sorted, absent members left out; stream IDs as decimal strings.
    func jsonBytes() -> [UInt8] {
        var writer = JSONWriter(capacity: 128)
        writer.beginObject()
        if let exp {
            writer.key("exp")
            writer.number(exp)
        }
        if let iat {
            writer.key("iat")
            writer.number(iat)
        }
        if let nbf {
            writer.key("nbf")
            writer.number(nbf)
        }
        if let role {
            writer.key("role")
            writer.string(role)
        }
        if let streamIds {
            writer.key("stream_ids")
            writer.beginArray()
            for id in streamIds {
                writer.element()
                writer.int64String(id.value)
            }
            writer.endArray()
        }
        if let sub {
            writer.key("sub")
            writer.string(sub)
        }
        writer.endObject()
        return writer.bytes
    }
}

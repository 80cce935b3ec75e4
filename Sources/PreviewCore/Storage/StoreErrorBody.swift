import Foundation

/// The machine code and message of an S3 or GCS XML error body:
/// `<Error><Code>SignatureDoesNotMatch</Code><Message>…</Message>…</Error>` (S3 API
/// reference "Error responses"; GCS XML API "Error codes" uses the same shape).
public struct StoreErrorBody: Sendable, Equatable {
    public var code: String?
    public var message: String?

    public init(code: String? = nil, message: String? = nil) {
        self.code = code
        self.message = message
    }

    /// Reads the first `<Code>` and `<Message>` elements; nil when the body has neither (an
    /// empty HEAD answer, an HTML page of a proxy). Only the five predefined XML entities and
    /// numeric character references are decoded; each text is capped at `limit` characters.
    public static func parse(_ body: [UInt8], limit: Int = 300) -> StoreErrorBody? {
        guard !body.isEmpty else { return nil }
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        let parsed = StoreErrorBody(
            code: element("Code", in: text).map { String($0.prefix(limit)) },
            message: element("Message", in: text).map { String($0.prefix(limit)) })
        return parsed.code == nil && parsed.message == nil ? nil : parsed
    }

    /// The decoded, trimmed text of the first `<name>…</name>`, if present and non-empty.
    public static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        let value = decodeEntities(String(text[open.upperBound..<close.lowerBound]))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// `text` with the five predefined XML entities and numeric character references decoded;
    /// anything else (`&bogus;`, a lone `&`) is kept as it is.
    public static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            let afterAmp = rest.index(after: amp)
            guard let semicolon = rest[afterAmp...].prefix(12).firstIndex(of: ";") else {
                result += "&"
                rest = rest[afterAmp...]
                continue
            }
            let entity = rest[afterAmp..<semicolon]
            if let decoded = decodeEntity(entity) {
                result += decoded
            } else {
                result += rest[amp...semicolon]
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }

    private static func decodeEntity(_ entity: Substring) -> String? {
        switch entity {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard entity.hasPrefix("#") else { return nil }
            let digits = entity.dropFirst()
            let value =
                digits.hasPrefix("x") || digits.hasPrefix("X")
                ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return value.flatMap(Unicode.Scalar.init).map { String(Character($0)) }
        }
    }
}

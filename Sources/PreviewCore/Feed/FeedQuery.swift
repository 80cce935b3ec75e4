/// The query of `GET /api/feed`: `limit` (default 20, capped at 100, below 1 is an error)
/// and `current` (the stream being played now).
public struct FeedQuery: Sendable, Equatable {
    public static let defaultLimit = 20
    public static let maxLimit = 100

    public var limit: Int
    public var current: Int64?

    public init(limit: Int = FeedQuery.defaultLimit, current: Int64? = nil) {
        self.limit = limit
        self.current = current
    }

    public static func parse(rawQuery: String) -> Result<FeedQuery, APIError> {
        var query = FeedQuery()
        for (name, value) in QueryString.parse(rawQuery) {
            switch name {
            case "limit":
                guard let limit = Int(value) else {
                    return .failure(.invalid("limit", "limit must be an integer from 1 to \(maxLimit)"))
                }
                guard limit >= 1 else { return .failure(.invalid("limit", "limit must be at least 1")) }
                query.limit = min(limit, maxLimit)
            case "current":
                guard let id = StreamID.parse(value) else {
                    return .failure(
                        .invalid(
                            "current", "current must be a positive 64-bit integer in decimal, without leading zeros"))
                }
                query.current = id
            default:
                continue
            }
        }
        return .success(query)
    }
}

/// `application/x-www-form-urlencoded`-style query parsing (`+` is a space, %XX decoded).
public enum QueryString {
    /// Pairs split at the bytes `&` and `=` (as the URL standard's parser does), empty pairs skipped.
    public static func parse(_ raw: String) -> [(String, String)] {
        var pairs: [(String, String)] = []
        var raw = raw
        raw.withUTF8 { bytes in
            func text(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.count
                if end > start {
                    if let equals = bytes[start..<end].firstIndex(of: UInt8(ascii: "=")) {
                        pairs.append((decode(text(start..<equals)), decode(text(equals + 1..<end))))
                    } else {
                        pairs.append((decode(text(start..<end)), ""))
                    }
                }
                start = end + 1
            }
        }
        return pairs
    }

    /// Decodes %XX escapes and `+` leniently: invalid escapes are kept as they are.
    public static func decode(_ text: String, plusIsSpace: Bool = true) -> String {
        // Most names and values have nothing to decode (`limit=20`).
        guard text.utf8.contains(where: { $0 == UInt8(ascii: "%") || (plusIsSpace && $0 == UInt8(ascii: "+")) })
        else { return text }
        return String(decoding: PercentDecoding.lenient(text, plusIsSpace: plusIsSpace), as: UTF8.self)
    }
}

/// A request target split at its first `?`, bytes kept exactly as the client sent them:
/// signed URLs are verified against these (S3 SigV4 canonical URI and query).
struct RequestTarget: Equatable {
    var path: String
    var rawQuery: String

    init(path: String, rawQuery: String) {
        self.path = path
        self.rawQuery = rawQuery
    }

    /// `/a%2Fb?x=1&y` → path `/a%2Fb`, query `x=1&y`; no `?` → empty query.
    init(raw: [UInt8]) {
        if let mark = raw.firstIndex(of: UInt8(ascii: "?")) {
            path = Self.text(raw[..<mark])
            rawQuery = Self.text(raw[(mark + 1)...])
        } else {
            path = Self.text(raw[...])
            rawQuery = ""
        }
    }

    /// Invalid UTF-8 is repaired (U+FFFD); such a target cannot match a signature anyway.
    private static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

import PreviewTestSupport

@testable import PreviewCore

/// Deterministic pseudo-random values for the JSON differential tests, so a failure names a
/// reproducible seed.
extension SeededGenerator {
    /// Scalars that exercise every escaping rule: quote, backslash, slash, every control
    /// character, DEL, Latin-1, a combining accent (NFD), the Kelvin sign (canonically `K`),
    /// line and paragraph separators, a byte-order mark, CJK, an emoji, a replacement character.
    static let awkward: [Unicode.Scalar] =
        [
            "\"", "\\", "/", "\u{7F}", "é", "e", "\u{301}", "\u{212A}", "K", "k", "\u{2028}", "\u{2029}", "\u{FEFF}",
            "日",
            "🎬", "\u{FFFD}", " ", "a", "Z", "0", "9", "-", "_", "~", "%", "=", "&", "?", "+", ":", "{", "}", "[", "]",
            ",",
        ]
        + (0..<0x20).compactMap { Unicode.Scalar($0) }

    mutating func string(maxLength: Int = 12) -> String {
        var scalars = String.UnicodeScalarView()
        for _ in 0..<Int.random(in: 0...maxLength, using: &self) {
            scalars.append(Self.awkward.randomElement(using: &self) ?? "a")
        }
        return String(scalars)
    }

    mutating func int64() -> Int64 {
        switch Int.random(in: 0..<6, using: &self) {
        case 0: [Int64.min, Int64.max, 0, -1, 1].randomElement(using: &self) ?? 0
        case 1: Int64.random(in: -1000...1000, using: &self)
        default: Int64.random(in: Int64.min...Int64.max, using: &self)
        }
    }

    mutating func int32() -> Int32 { Int32(truncatingIfNeeded: int64()) }

    mutating func bool() -> Bool { Bool.random(using: &self) }

    /// Header-like keys, with case and prefix variants that sort differently by bytes than by
    /// a case-insensitive or numeric comparison.
    mutating func stringMap() -> [String: String] {
        let names = [
            "Content-Type", "content-type", "Content-Length", "If-None-Match", "x-goog-if-generation-match",
            "x-goog-content-length-range", "a", "B", "a2", "a10", "é", "e\u{301}x", "", "Z", "_",
        ]
        var map: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &self) {
            let name = Bool.random(using: &self) ? (names.randomElement(using: &self) ?? "a") : string(maxLength: 4)
            map[name] = string()
        }
        return map
    }

    mutating func postRequest() -> StreamPreviewPostRequest {
        StreamPreviewPostRequest(
            streamId: int64(), movieBytes: int64(), thumbnailBytes: int64(), movieContentType: string(),
            thumbnailContentType: string())
    }

    mutating func postResponse() -> StreamPreviewPostResponse {
        StreamPreviewPostResponse(
            movieBodyUrl: string(maxLength: 40), movieThumbnailBodyUrl: string(maxLength: 40), uploadId: string(),
            expiresAt: int64(), movieHeaders: stringMap(), thumbnailHeaders: stringMap(), refreshAfter: int64())
    }

    mutating func commitRequest() -> StreamPreviewCommitRequest {
        StreamPreviewCommitRequest(streamId: int64(), uploadId: string())
    }

    mutating func feedItem() -> FeedItem {
        FeedItem(
            streamId: int64(), movieUrl: string(maxLength: 40), thumbnailUrl: string(maxLength: 40), likes: int64(),
            liked: bool(), seen: bool(), previewVersion: int64(), updatedAt: int64(), expiresAt: int64(),
            durationMs: int64(), width: int32(), height: int32(), fastStart: bool(),
            labels: stringMap(), stale: bool())
    }

    mutating func feedResponse() -> FeedResponse {
        FeedResponse(items: (0..<Int.random(in: 0...3, using: &self)).map { _ in feedItem() })
    }

    mutating func likeResponse() -> LikeResponse { LikeResponse(likes: int64(), liked: bool()) }

    mutating func errorResponse() -> ErrorResponse {
        ErrorResponse(code: string(), message: string(maxLength: 30), target: string(), requestId: string())
    }
}

/// A single `Range: bytes=...` request (RFC 9110 §14.1.2), resolved against a length.
public enum ByteRange: Sendable, Equatable {
    /// Serve the whole representation (no Range, or one we ignore such as multiple ranges).
    case whole
    /// Serve `offset ..< offset + length` with 206.
    case partial(offset: UInt64, length: UInt64)
    /// 416 with `Content-Range: bytes */<length>`.
    case unsatisfiable

    public static func resolve(_ header: String?, length: UInt64) -> ByteRange {
        guard let header else { return .whole }
        let trimmed = header.trimmingSpacesAndTabs()
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst("bytes=".count)
        // Several ranges would need multipart/byteranges; serving the whole body is allowed.
        guard !spec.contains(",") else { return .whole }
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return .whole }
        let first = String(parts[0]).trimmingSpacesAndTabs()
        let last = String(parts[1]).trimmingSpacesAndTabs()
        if first.isEmpty {
            // Suffix range: the last N bytes.
            guard let suffix = position(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            let count = min(suffix, length)
            return .partial(offset: length - count, length: count)
        }
        guard let start = position(first) else { return .whole }
        guard start < length else { return .unsatisfiable }
        var end = length - 1
        if !last.isEmpty {
            guard let requested = position(last), requested >= start else { return .whole }
            end = min(requested, length - 1)
        }
        return .partial(offset: start, length: end - start + 1)
    }

    /// A position is `1*DIGIT` (RFC 9110 §14.1.1); `UInt64(_:)` alone would also take a sign.
    private static func position(_ text: String) -> UInt64? {
        guard text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return UInt64(text)
    }
}

/// The two wire formats of every API route (proto/stream_preview.proto).
public enum WireFormat: Sendable, Equatable {
    case json
    case protobuf

    public var contentType: String {
        switch self {
        case .json: return "application/json"
        case .protobuf: return "application/x-protobuf"
        }
    }

    static let protobufNames: Set<String> = [
        "application/x-protobuf", "application/protobuf", "application/vnd.google.protobuf",
    ]

    /// The format of a request body from its Content-Type; nil when it is neither, and when a
    /// body comes without a Content-Type (nothing says what it is: 415). An empty body without
    /// one is JSON, so routes without a body need no header.
    public static func ofRequestBody(contentType: String?, bodyIsEmpty: Bool) -> WireFormat? {
        guard let contentType else { return bodyIsEmpty ? .json : nil }
        // The exact names apps send, without parsing: every API request asks this once or twice.
        if contentType == "application/json" { return .json }
        if contentType == "application/x-protobuf" { return .protobuf }
        let essence = (contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? "")
            .trimmingSpacesAndTabs().lowercased()
        if essence == "application/json" { return .json }
        if protobufNames.contains(essence) { return .protobuf }
        return nil
    }

    /// The response format from `Accept` (RFC 9110 §12.5.1), or nil when it admits neither
    /// format (406). Each format takes the weight (`q`, default 1) of the most specific range
    /// that matches it: its own name, then `application/*`, then `*/*`; `q=0` excludes it. The
    /// heavier format wins; on a tie, the one named by its own type, then the one named first,
    /// then `fallback` (the request's own format). No or an empty `Accept` is `fallback`.
    public static func forResponse(accept: String?, fallback: WireFormat) -> WireFormat? {
        guard let accept, !accept.trimmingSpacesAndTabs().isEmpty else { return fallback }
        let ranges = MediaRange.parseList(accept)
        let json = weight(of: .json, in: ranges)
        let protobuf = weight(of: .protobuf, in: ranges)
        let admitted = [json, protobuf].compactMap { $0 }.filter { $0.quality > 0 }
        guard !admitted.isEmpty else { return nil }
        let best = admitted.max { a, b in
            if a.quality != b.quality { return a.quality < b.quality }
            if a.specificity != b.specificity { return a.specificity < b.specificity }
            if a.specificity == 2, a.position != b.position { return a.position > b.position }
            return a.format != fallback && b.format == fallback
        }
        return best?.format
    }

    /// How much `Accept` wants `format`, from the most specific range that names it.
    private struct Weight {
        var format: WireFormat
        var quality: Double
        /// 2: the format's own type, 1: `application/*`, 0: `*/*`.
        var specificity: Int
        /// Where that range stands in the header.
        var position: Int
    }

    private static func weight(of format: WireFormat, in ranges: [MediaRange]) -> Weight? {
        let names: Set<String> = format == .json ? ["application/json"] : protobufNames
        var best: Weight?
        for (position, range) in ranges.enumerated() {
            let specificity: Int
            if names.contains(range.type + "/" + range.subtype) {
                specificity = 2
            } else if range.type == "application" && range.subtype == "*" {
                specificity = 1
            } else if range.type == "*" && range.subtype == "*" {
                specificity = 0
            } else {
                continue
            }
            if let current = best, current.specificity >= specificity { continue }
            best = Weight(format: format, quality: range.quality, specificity: specificity, position: position)
        }
        return best
    }
}

/// One `media-range [; q=weight]` of an `Accept` header (RFC 9110 §12.5.1), lower-cased.
struct MediaRange: Equatable {
    var type: String
    var subtype: String
    /// 0 to 1; 1 when absent. A malformed weight makes the range count as `q=0`.
    var quality: Double

    static func parseList(_ header: String) -> [MediaRange] {
        header.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingSpacesAndTabs().lowercased() }
            guard let essence = parts.first, let slash = essence.firstIndex(of: "/") else { return nil }
            var range = MediaRange(
                type: String(essence[..<slash]), subtype: String(essence[essence.index(after: slash)...]), quality: 1)
            guard HTTPToken.isToken(range.type), HTTPToken.isToken(range.subtype) else { return nil }
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                let value = Double(parameter.dropFirst(2)) ?? -1
                range.quality = (0...1).contains(value) ? value : 0
            }
            return range
        }
    }
}

/// Entity tags for conditional GETs (RFC 9110 §8.8.3, §13.1.2).
public enum EntityTag {
    /// Whether an `If-None-Match` value matches `etag` (weak comparison, `*` matches all).
    public static func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
        guard let header else { return false }
        let bare = strip(etag)
        for candidate in header.split(separator: ",") {
            let tag = String(candidate).trimmingSpacesAndTabs()
            if tag == "*" || strip(tag) == bare { return true }
        }
        return false
    }

    private static func strip(_ tag: String) -> String {
        tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag
    }
}

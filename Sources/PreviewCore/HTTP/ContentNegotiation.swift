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

    static let protobufNames = [
        "application/x-protobuf", "application/protobuf", "application/vnd.google.protobuf",
    ]

    /// The format of a request body from its Content-Type; nil when it is neither, and when a
    /// body comes without a Content-Type (nothing says what it is: 415). An empty body without
    /// one is JSON, so routes without a body need no header. Only the first
    /// `MediaRange.maxEssenceBytes` bytes are looked at: a longer type is none of ours.
    public static func ofRequestBody(contentType: String?, bodyIsEmpty: Bool) -> WireFormat? {
        guard let contentType else { return bodyIsEmpty ? .json : nil }
        // The exact names apps send, without parsing: every API request asks this once or twice.
        if contentType == "application/json" { return .json }
        if contentType == "application/x-protobuf" { return .protobuf }
        let bytes = contentType.utf8.prefix(MediaRange.maxEssenceBytes + 1)
        let essence = bytes.prefix { $0 != UInt8(ascii: ";") }
        guard essence.count <= MediaRange.maxEssenceBytes else { return nil }
        switch MediaRange.Kind(essence: ASCII.trimmingBlanks(essence)) {
        case .json?: return .json
        case .protobuf?: return .protobuf
        default: return nil
        }
    }

    /// The most media ranges an `Accept` may list (more is `Negotiation.tooLarge`).
    public static var maxAcceptRanges: Int { MediaRange.maxRanges }
    /// The most bytes an `Accept` may have (more is `Negotiation.tooLarge`).
    public static var maxAcceptBytes: Int { MediaRange.maxHeaderBytes }

    /// What `Accept` asks for (RFC 9110 §12.5.1).
    public enum Negotiation: Sendable, Equatable {
        case format(WireFormat)
        /// Accept admits neither format (406).
        case notAcceptable
        /// Accept lists more than `MediaRange.maxRanges` ranges or is longer than
        /// `MediaRange.maxHeaderBytes` (400): no client needs that, and each range costs work.
        case tooLarge

        /// The format to answer in: nil when Accept admits neither format (406); an Accept over
        /// the limits gives `fallback` (the format of the 400 that refuses it).
        public func responseFormat(fallback: @autoclosure () -> WireFormat) -> WireFormat? {
            switch self {
            case .format(let format): return format
            case .notAcceptable: return nil
            case .tooLarge: return fallback()
            }
        }
    }

    /// Whether `Accept` names `text/html` with a weight above 0: a browser, or a link previewer
    /// reading a page (share links answer those with a page, others with a redirect).
    public static func acceptsHTML(_ accept: String?) -> Bool {
        guard let accept else { return false }
        var html = false
        let whole = MediaRange.scan(accept) { range, _ in
            if range.kind == .html, range.quality > 0 { html = true }
        }
        return whole && html
    }

    /// The response format from `Accept` (RFC 9110 §12.5.1). Each format takes the weight (`q`,
    /// default 1) of the most specific range that matches it: its own name, then
    /// `application/*`, then `*/*`; `q=0` excludes it. The heavier format wins; on a tie, the one
    /// named by its own type, then the one named first, then `fallback` (the request's own
    /// format). No or an empty `Accept` is `fallback`. The header is read once, byte by byte,
    /// at most `MediaRange.maxRanges` ranges and `MediaRange.maxHeaderBytes` bytes of it.
    public static func negotiate(accept: String?, fallback: WireFormat) -> Negotiation {
        guard let accept else { return .format(fallback) }
        var json: Weight?
        var protobuf: Weight?
        var ranges = 0
        let whole = MediaRange.scan(accept) { range, position in
            ranges += 1
            weigh(range, at: position, for: .json, into: &json)
            weigh(range, at: position, for: .protobuf, into: &protobuf)
        }
        guard whole else { return .tooLarge }
        guard ranges > 0 || !ASCII.trimmingBlanks(accept.utf8[...]).isEmpty else { return .format(fallback) }
        let admitted = [json, protobuf].compactMap { $0 }.filter { $0.quality > 0 }
        let best = admitted.max { a, b in
            if a.quality != b.quality { return a.quality < b.quality }
            if a.specificity != b.specificity { return a.specificity < b.specificity }
            if a.specificity == 2, a.position != b.position { return a.position > b.position }
            return a.format != fallback && b.format == fallback
        }
        return best.map { .format($0.format) } ?? .notAcceptable
    }

    /// `negotiate`'s format, nil when Accept admits neither format (406); an Accept over the
    /// limits gives `fallback` (the format of the 400 that refuses it).
    public static func forResponse(accept: String?, fallback: WireFormat) -> WireFormat? {
        negotiate(accept: accept, fallback: fallback).responseFormat(fallback: fallback)
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

    /// Takes `range` (at `position` among the ranges) as `format`'s weight when it is the most
    /// specific range naming `format` so far.
    private static func weigh(_ range: MediaRange, at position: Int, for format: WireFormat, into best: inout Weight?) {
        let specificity: Int
        switch range.kind {
        case .json where format == .json, .protobuf where format == .protobuf: specificity = 2
        case .applicationAny: specificity = 1
        case .any: specificity = 0
        default: return
        }
        if let current = best, current.specificity >= specificity { return }
        best = Weight(format: format, quality: range.quality, specificity: specificity, position: position)
    }
}

/// One `media-range [; q=weight]` of an `Accept` header (RFC 9110 §12.5.1), reduced to what
/// the formats need: which of our names it is, and its weight.
struct MediaRange: Equatable {
    /// Ranges an `Accept` may list; a header with more is refused (`WireFormat.Negotiation.tooLarge`).
    static let maxRanges = 32
    /// Bytes an `Accept` may have (a browser's is under 300).
    static let maxHeaderBytes = 2048
    /// The longest `type/subtype` looked at; longer is none of ours.
    static let maxEssenceBytes = 128

    enum Kind: Equatable {
        case json
        case protobuf
        /// `application/*`
        case applicationAny
        /// `*/*`
        case any
        /// `text/html`, which only share links answer.
        case html
        /// A valid `type/subtype` that is none of the above.
        case other

        /// The kind of a `type/subtype`, compared without case and without a lowered copy; nil
        /// when it is not two tokens around a slash.
        init?<Bytes: Collection<UInt8>>(essence: Bytes) {
            guard let slash = essence.firstIndex(of: UInt8(ascii: "/")) else { return nil }
            let type = essence[..<slash]
            let subtype = essence[essence.index(after: slash)...]
            guard !type.isEmpty, !subtype.isEmpty, type.allSatisfy(HTTPToken.isTokenByte),
                subtype.allSatisfy(HTTPToken.isTokenByte)
            else { return nil }
            if ASCII.equalIgnoringCase(essence, "application/json".utf8) {
                self = .json
            } else if ASCII.equalIgnoringCase(essence, "text/html".utf8) {
                self = .html
            } else if WireFormat.protobufNames.contains(where: { ASCII.equalIgnoringCase(essence, $0.utf8) }) {
                self = .protobuf
            } else if subtype.elementsEqual("*".utf8) {
                if type.elementsEqual("*".utf8) {
                    self = .any
                } else {
                    self = ASCII.equalIgnoringCase(type, "application".utf8) ? .applicationAny : .other
                }
            } else {
                self = .other
            }
        }
    }

    var kind: Kind
    /// 0 to 1; 1 when absent. A malformed weight makes the range count as `q=0`.
    var quality: Double

    /// The ranges of `header` in order, those that are not `type/subtype` left out; nil when it
    /// has more than `maxRanges` list elements or more than `maxHeaderBytes` bytes.
    static func parseList(_ header: String) -> [MediaRange]? {
        var ranges: [MediaRange] = []
        return scan(header) { range, _ in ranges.append(range) } ? ranges : nil
    }

    /// Reads `header` once, byte by byte, with no copies and no allocation, calling `body` with
    /// each range that is a `type/subtype` and its place among them; false when `header` has more
    /// than `maxRanges` list elements or more than `maxHeaderBytes` bytes (then `body` may have
    /// seen some ranges, which the caller must not use). Parameters other than `q` are skipped
    /// where they stand, so their number costs nothing but the bytes.
    static func scan(_ header: String, _ body: (MediaRange, _ position: Int) -> Void) -> Bool {
        var header = header
        return header.withUTF8 { bytes in
            guard bytes.count <= maxHeaderBytes else { return false }
            var start = 0
            var elements = 0
            var position = 0
            while true {
                elements += 1
                guard elements <= maxRanges else { return false }
                var end = start
                while end < bytes.count, bytes[end] != UInt8(ascii: ",") { end += 1 }
                if let range = parse(UnsafeBufferPointer(rebasing: bytes[start..<end])) {
                    body(range, position)
                    position += 1
                }
                guard end < bytes.count else { return true }
                start = end + 1
            }
        }
    }

    /// One element: `type/subtype *( OWS ";" OWS parameter )`.
    static func parse(_ element: UnsafeBufferPointer<UInt8>) -> MediaRange? {
        var cut = 0
        while cut < element.count, element[cut] != UInt8(ascii: ";") { cut += 1 }
        guard let kind = Kind(essence: trimmed(UnsafeBufferPointer(rebasing: element[..<cut]))) else { return nil }
        var range = MediaRange(kind: kind, quality: 1)
        while cut < element.count {
            let start = cut + 1
            cut = start
            while cut < element.count, element[cut] != UInt8(ascii: ";") { cut += 1 }
            let parameter = trimmed(UnsafeBufferPointer(rebasing: element[start..<cut]))
            guard parameter.count >= 2, parameter[parameter.startIndex] | 0x20 == UInt8(ascii: "q"),
                parameter[parameter.startIndex + 1] == UInt8(ascii: "=")
            else { continue }
            range.quality = qvalue(UnsafeBufferPointer(rebasing: parameter.dropFirst(2)))
        }
        return range
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> Slice<UnsafeBufferPointer<UInt8>> {
        ASCII.trimming(bytes, ASCII.isBlank)
    }

    /// `qvalue` (RFC 9110 §12.4.2: `0` or `1`, then at most three decimals, none above `1.000`)
    /// as a number in 0...1; 0 for anything else.
    private static func qvalue(_ text: UnsafeBufferPointer<UInt8>) -> Double {
        guard let first = text.first, first == UInt8(ascii: "0") || first == UInt8(ascii: "1") else { return 0 }
        var thousandths = first == UInt8(ascii: "1") ? 1000 : 0
        guard text.count > 1 else { return Double(thousandths) / 1000 }
        guard text[1] == UInt8(ascii: "."), text.count <= 5 else { return 0 }
        var scale = 100
        for digit in text[2...] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(digit) else { return 0 }
            thousandths += Int(digit - UInt8(ascii: "0")) * scale
            scale /= 10
        }
        return thousandths <= 1000 ? Double(thousandths) / 1000 : 0
    }
}

/// Entity tags for conditional GETs (RFC 9110 §8.8.3, §13.1.2).
public enum EntityTag {
    /// Tags an `If-None-Match` may list; one with more is treated as absent (the full answer
    /// is always a correct one), so a long list costs no more than this many comparisons.
    public static let maxTags = 32
    /// Bytes an `If-None-Match` may have; a longer one is treated as absent.
    public static let maxHeaderBytes = 4096

    /// Whether an `If-None-Match` value matches `etag` (weak comparison, `*` matches all).
    /// Compared byte by byte in the header, without copies.
    public static func ifNoneMatch(_ header: String?, matches etag: String) -> Bool {
        guard let header, header.utf8.count <= maxHeaderBytes else { return false }
        let bare = strip(etag.utf8[...])
        let tags = header.utf8[...].split(
            separator: UInt8(ascii: ","), maxSplits: maxTags, omittingEmptySubsequences: false)
        guard tags.count <= maxTags else { return false }
        return tags.contains { candidate in
            let tag = ASCII.trimmingBlanks(candidate)
            return tag.elementsEqual("*".utf8) || strip(tag).elementsEqual(bare)
        }
    }

    private static func strip(_ tag: Substring.UTF8View) -> Substring.UTF8View {
        tag.starts(with: "W/".utf8) ? tag.dropFirst(2) : tag
    }
}

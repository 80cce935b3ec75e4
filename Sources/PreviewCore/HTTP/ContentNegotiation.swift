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

    /// The format of a request body from its Content-Type; nil when it is neither.
    /// A missing Content-Type on an empty body is JSON.
    public static func ofRequestBody(contentType: String?) -> WireFormat? {
        guard let contentType else { return .json }
        let essence = (contentType.split(separator: ";", maxSplits: 1).first.map(String.init) ?? "")
            .trimmingSpacesAndTabs().lowercased()
        if essence == "application/json" { return .json }
        if protobufNames.contains(essence) { return .protobuf }
        return nil
    }

    /// The response format from Accept: protobuf when it asks for protobuf (and not JSON
    /// first), otherwise `fallback` (the request's own format), JSON when nothing says.
    public static func forResponse(accept: String?, fallback: WireFormat) -> WireFormat {
        guard let accept, !accept.isEmpty else { return fallback }
        for item in accept.split(separator: ",") {
            let essence = (item.split(separator: ";", maxSplits: 1).first.map(String.init) ?? "")
                .trimmingSpacesAndTabs().lowercased()
            if protobufNames.contains(essence) { return .protobuf }
            if essence == "application/json" { return .json }
        }
        return fallback
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

/// The framing rule the server enforces on every request head (RFC 9112 §6): a body's length
/// must be told exactly one way, so that no proxy in front of the server can read the same
/// bytes as a different sequence of requests.
public enum HTTPFraming {
    /// The problem with `headers`' framing, or nil when it is unambiguous: at most one
    /// `Content-Length` field holding one value, or else at most one `Transfer-Encoding` field
    /// whose value is exactly the single coding `chunked` (compared case-insensitively, as
    /// coding names are), and never both headers together.
    public static func problem(in headers: HTTPHeaders) -> HTTPRefusal? {
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if !lengths.isEmpty, !encodings.isEmpty {
            return .ambiguousFraming("Content-Length and Transfer-Encoding together")
        }
        if lengths.count > 1 {
            return .ambiguousFraming("more than one Content-Length field")
        }
        if let length = lengths.first, length.contains(",") {
            return .ambiguousFraming("more than one Content-Length value")
        }
        if encodings.count > 1 {
            return .ambiguousFraming("more than one Transfer-Encoding field")
        }
        if let encoding = encodings.first, encoding.trimmingSpacesAndTabs().lowercased() != "chunked" {
            return .ambiguousFraming("Transfer-Encoding other than chunked")
        }
        return nil
    }

}

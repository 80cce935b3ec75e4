/// The framing rule the server enforces on every request head (RFC 9112 §6): a body's length
/// must be told exactly one way, so that no proxy in front of the server can read the same
/// bytes as a different sequence of requests.
///
/// The head is judged as the HTTP library under the server parsed it, which is not how a proxy
/// parses it: that library keeps whitespace between a field name and its colon in the name,
/// glues a folded line (obs-fold) onto the previous field's name, and reads a body as chunked
/// only when the coding is exactly `chunked` with nothing after it. So such a
/// `Transfer-Encoding: chunked` is not seen as one here while a proxy may honour it; each of
/// these is refused instead (RFC 9112 §5.1 and §5.2 allow refusing both).
public enum HTTPFraming {
    /// The problem with `headers`' framing, or nil when it is unambiguous: every field name a
    /// token, none a `Content-Length` or `Transfer-Encoding` name with more glued on, at most
    /// one `Content-Length` field holding one value, or else at most one `Transfer-Encoding`
    /// field whose value is exactly the single coding `chunked` (compared case-insensitively, as
    /// coding names are; leading blanks allowed, trailing ones not), and never both together.
    public static func problem(in headers: HTTPHeaders) -> HTTPRefusal? {
        for field in headers {
            guard HTTPToken.isToken(field.name) else {
                return .ambiguousFraming("a field name with whitespace or a folded line in it")
            }
            // Only a name at least as long as "content-length" can be one with more glued on.
            guard field.name.utf8.count >= 14 else { continue }
            let name = field.name.lowercased()
            if name != "content-length", name != "transfer-encoding",
                name.hasPrefix("content-length") || name.hasPrefix("transfer-encoding")
            {
                return .ambiguousFraming("a folded Content-Length or Transfer-Encoding field")
            }
        }
        let lengths = headers.values("Content-Length")
        let encodings = headers.values("Transfer-Encoding")
        if !lengths.isEmpty, !encodings.isEmpty {
            return .ambiguousFraming("Content-Length and Transfer-Encoding together")
        }
        if lengths.count > 1 {
            return .ambiguousFraming("more than one Content-Length field")
        }
        if let length = lengths.first, length.utf8.contains(UInt8(ascii: ",")) {
            return .ambiguousFraming("more than one Content-Length value")
        }
        if encodings.count > 1 {
            return .ambiguousFraming("more than one Transfer-Encoding field")
        }
        if let encoding = encodings.first, encoding.drop(while: { $0 == " " || $0 == "\t" }).lowercased() != "chunked" {
            return .ambiguousFraming("Transfer-Encoding other than chunked")
        }
        return nil
    }
}

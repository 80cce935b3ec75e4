public import PreviewCore

/// An outgoing HTTP request as a plain value; `HTTPClient` sends it as given (headers exactly,
/// path not normalised), which is what signed URLs (GCS V4) need.
public struct HTTPClientRequest: Sendable {
    /// What goes after the header block.
    public enum Body: Sendable {
        case none
        case bytes([UInt8])
        /// A regular file, streamed from disk rather than loaded; its size is taken when sending.
        case file(path: String)
    }

    /// The method token, sent as given (`GET`, `HEAD`, `PUT`, `POST`, `DELETE`, ...).
    public var method: String
    /// An absolute `http://` or `https://` URL; its path and query go over the wire byte for byte.
    public var url: String
    public var headers: HTTPHeaders
    public var body: Body
    /// The limit for the whole exchange, connect included; must be positive.
    public var timeoutSeconds: Double = 10
    /// A response body longer than this aborts the transfer (`.transfer` error); nil: no limit.
    public var maxResponseBodyBytes: Int?
    /// Called on the sending thread, from libcurl's transfer-info callback, with the body bytes
    /// sent so far and the body's size, each time that count changes (often: many times a second,
    /// so a display limits its own rate). A rewind for curl's own resend can lower the count.
    public var uploadProgress: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?

    public init(method: String, url: String, headers: HTTPHeaders = HTTPHeaders(), body: Body = .none) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The final response of an exchange (never an interim `100 Continue`).
public struct HTTPClientResponse: Sendable {
    public var status: Int
    /// The final response's header fields in wire order.
    public var headers: HTTPHeaders
    /// The body as received (no content decoding); empty for `HEAD`.
    public var body: [UInt8]

    public init(status: Int, headers: HTTPHeaders, body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Why a request produced no response; `message` is libcurl's own error text where there is one.
public struct HTTPClientError: Error, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Not an absolute http(s) URL, or one curl cannot parse.
        case invalidURL
        /// The request cannot be expressed on the wire: a method or header containing CR, LF or
        /// NUL, an invalid header name, a non-positive timeout.
        case invalidRequest
        /// Name resolution, TCP or TLS connection failed.
        case connect
        /// The exchange took longer than `timeoutSeconds`.
        case timeout
        /// The connection failed after it was established (reset, malformed response, ...).
        case transfer
        /// The `.file` body could not be opened, is not a regular file, or failed to read.
        case file
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "HTTP client \(kind): \(message)" }
}

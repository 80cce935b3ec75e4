/// A complete HTTP response as a plain value.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable, Equatable {
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset`: served by the adapter straight
        /// from the file descriptor (clips are megabytes; no copy through Swift arrays).
        case file(path: String, offset: UInt64, length: UInt64)
    }

    public var status: Int
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body's length in bytes.
    public var bodyLength: UInt64 {
        switch body {
        case .bytes(let bytes): return UInt64(bytes.count)
        case .file(_, _, let length): return length
        }
    }
}

/// Answers requests; the server adapter calls it on its worker threads, synchronously.
public protocol HTTPResponder: Sendable {
    /// The most body bytes this request may carry; past that the adapter stops reading
    /// into memory and hands `respond` a request with `bodyTooLarge` set.
    func bodyLimit(for head: HTTPRequestHead) -> Int
    func respond(to request: HTTPRequest) -> HTTPResponse
}

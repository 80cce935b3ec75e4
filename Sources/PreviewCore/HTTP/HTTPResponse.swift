/// A complete HTTP response as a plain value.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable, Equatable {
        case bytes([UInt8])
        /// `length` bytes of the file at `path` from `offset`: served by the adapter straight
        /// from the file descriptor (clips are megabytes; no copy through Swift arrays).
        case file(path: String, offset: UInt64, length: UInt64)
        /// Bytes of unknown length written over time (chunked), such as server-sent events.
        case stream(any ResponseStream)

        public static func == (lhs: Body, rhs: Body) -> Bool {
            switch (lhs, rhs) {
            case (.bytes(let a), .bytes(let b)): return a == b
            case (.file(let p1, let o1, let l1), .file(let p2, let o2, let l2)): return p1 == p2 && o1 == o2 && l1 == l2
            case (.stream(let a), .stream(let b)): return a === b
            default: return false
            }
        }
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
        case .stream: return 0
        }
    }
}

/// Answers requests. The server adapter calls `admit` and `refuse` on its I/O thread, so they
/// must decide from the head alone and never block; `respond` runs where `admit` said
/// (`ResponderThread`): on the I/O thread only for quick work, on a worker when it may block long.
public protocol HTTPResponder: Sendable {
    /// Decides, from the head alone, how the body is read or whether the request is refused
    /// before any body byte (and before `100 Continue`).
    func admit(_ head: HTTPRequestHead) -> RequestAdmission
    /// Called once the whole body has arrived, on the thread `admit` chose. For a `.stream` admission `request.body` is
    /// empty and `request.bodySink` is the sink that received every byte.
    func respond(to request: HTTPRequest) -> HTTPResponse
    /// The answer to a request the server refuses on its own before admission (ambiguous
    /// framing: several Content-Length values, Content-Length with Transfer-Encoding, a
    /// Transfer-Encoding other than `chunked`): a 400 rendered by the app's error table. The
    /// server sends it with `Connection: close`.
    func refuse(_ head: HTTPRequestHead, reason: HTTPRefusal) -> HTTPResponse
}

/// A complete HTTP request as a plain value; only the server adapter knows the wire.
public struct HTTPRequest: Sendable {
    /// The method token as sent (`GET`, `POST`, ...), upper case.
    public var method: String
    /// The request target's path, still percent-encoded, without the query.
    public var path: String
    /// The raw query string after `?` (without it), still percent-encoded; empty when absent.
    public var rawQuery: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// True when the client declared more body bytes than the `.buffer` limit the responder
    /// admitted this request with; `body` then holds nothing and the responder answers 413.
    public var bodyTooLarge: Bool
    /// The sink that received the body of a request admitted with `.stream`; nil otherwise.
    public var bodySink: (any HTTPBodySink)?
    /// The peer's address as text (`127.0.0.1`), for logs and rate limits.
    public var remoteAddress: String
    /// What `Accept` asks for, negotiated once by the responder that reads it (nil until then),
    /// so a header is parsed once per request however often the answer's format is asked.
    public var negotiation: WireFormat.Negotiation?
    /// What the `Authorization` header says, read once by the responder (nil until then): the
    /// caller's claims, nil for an anonymous request, or why the header is refused. The rate
    /// limiter and the handler then share one verification.
    public var authentication: Result<TokenClaims?, APIError>?

    public init(
        method: String, path: String, rawQuery: String = "", headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [], bodyTooLarge: Bool = false, remoteAddress: String = "",
        bodySink: (any HTTPBodySink)? = nil
    ) {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.remoteAddress = remoteAddress
        self.bodySink = bodySink
    }
}

/// What the server adapter knows before the body arrives: enough to admit or refuse it.
public struct HTTPRequestHead: Sendable {
    public var method: String
    public var path: String
    public var rawQuery: String
    public var headers: HTTPHeaders
    /// The peer's address as text (`127.0.0.1`), for logs and rate limits.
    public var remoteAddress: String

    public init(method: String, path: String, rawQuery: String, headers: HTTPHeaders, remoteAddress: String = "") {
        self.method = method
        self.path = path
        self.rawQuery = rawQuery
        self.headers = headers
        self.remoteAddress = remoteAddress
    }
}

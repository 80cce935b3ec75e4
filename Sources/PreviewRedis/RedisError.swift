/// Why a Redis operation failed. `kind` tells the pool whether the connection is still usable.
public struct RedisError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A URL that `RedisEndpoint.parse` cannot accept.
        case invalidURL
        /// Could not connect, or the connection was lost (EOF, EPIPE, ECONNRESET...).
        case connection
        /// Connect or command timeout; the reply may still arrive, so the connection is dropped.
        case timeout
        /// The bytes on the wire were not RESP.
        case protocolError
        /// The server answered with an error reply; `message` is its text verbatim (e.g. `WRONGTYPE ...`, `NOSCRIPT ...`).
        case server
        /// The server answered that it cannot serve this now (`READONLY` from a demoted primary, `LOADING`,
        /// `MASTERDOWN`, `TRYAGAIN`, `CLUSTERDOWN`), or too few replicas confirmed a write (`WAIT`): another
        /// node, or this one a moment later, can. `message` is the reply verbatim.
        case unavailable
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    /// The error for an error reply: `.unavailable` when its code (the first word) is one of
    /// `unavailableCodes`, else `.server`.
    public static func reply(_ message: String) -> RedisError {
        RedisError(kind: isUnavailableReply(message) ? .unavailable : .server, message: message)
    }

    /// Error codes meaning "not now, not here": the request did not run and can succeed on the
    /// current primary, or after a failover, or once the data set is loaded.
    public static let unavailableCodes: Set<Substring> = [
        "READONLY", "LOADING", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN",
    ]

    static func isUnavailableReply(_ message: String) -> Bool {
        unavailableCodes.contains(message.prefix { $0 != " " })
    }

    /// True for an unavailable reply that says the node as a whole cannot serve now, so its connection is
    /// dropped: every code of `unavailableCodes` but `TRYAGAIN`, which a cluster node answers for the keys of
    /// one slot while it migrates (the connection and the node are fine).
    static func breaksConnection(reply message: String) -> Bool {
        isUnavailableReply(message) && message.prefix(while: { $0 != " " }) != "TRYAGAIN"
    }

    public var description: String {
        switch kind {
        case .invalidURL: "invalid redis URL: \(message)"
        case .connection: "redis connection error: \(message)"
        case .timeout: "redis timeout: \(message)"
        case .protocolError: "redis protocol error: \(message)"
        case .server: "redis error reply: \(message)"
        case .unavailable: "redis unavailable: \(message)"
        }
    }

    /// True when the connection that produced this error must not be reused. An `.unavailable` reply breaks its
    /// connection where it is read (`RedisConnection`, except `TRYAGAIN`); a `WAIT` shortfall leaves it usable.
    var breaksConnection: Bool { kind == .connection || kind == .timeout || kind == .protocolError }
}

extension RedisError.Kind {
    /// True when the server behind a connection that broke this way has most likely gone away or stepped
    /// down, so the other idle connections to it are dropped too.
    var suspectsServer: Bool { self == .connection || self == .unavailable }
}

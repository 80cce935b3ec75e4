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
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        switch kind {
        case .invalidURL: "invalid redis URL: \(message)"
        case .connection: "redis connection error: \(message)"
        case .timeout: "redis timeout: \(message)"
        case .protocolError: "redis protocol error: \(message)"
        case .server: "redis error reply: \(message)"
        }
    }

    /// True when the connection that produced this error must not be reused.
    var breaksConnection: Bool { kind == .connection || kind == .timeout || kind == .protocolError }
}

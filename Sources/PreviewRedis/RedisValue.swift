/// One Redis reply (RESP2), copied out of hiredis as soon as it arrives so no C memory outlives the call.
public enum RedisValue: Sendable, Equatable {
    /// Bulk string: arbitrary bytes, NUL and invalid UTF-8 included.
    case bulk([UInt8])
    /// Simple string such as `+OK` or `+PONG`.
    case status(String)
    case integer(Int64)
    case array([RedisValue])
    /// Nil bulk string or nil array.
    case null
    /// Error reply. Only seen inside pipeline results and arrays (EXEC, scripts);
    /// a top-level error reply is thrown by `RedisConnection.command` as `RedisError.reply`.
    case error(String)
}

extension RedisValue {
    /// A bulk or status reply as UTF-8 text; nil for other replies and for bytes that are not valid UTF-8.
    public var string: String? {
        switch self {
        case .bulk(let bytes): String(validating: bytes, as: UTF8.self)
        case .status(let text): text
        default: nil
        }
    }

    /// The raw bytes of a bulk reply (or of a status reply's text).
    public var bytes: [UInt8]? {
        switch self {
        case .bulk(let bytes): bytes
        case .status(let text): Array(text.utf8)
        default: nil
        }
    }

    /// An integer reply, or a bulk reply holding a decimal integer (as GET of an INCRed key returns).
    public var int: Int64? {
        switch self {
        case .integer(let value): value
        case .bulk: string.flatMap { Int64($0) }
        default: nil
        }
    }

    public var array: [RedisValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// An error reply whose code says the node cannot serve now (`RedisError.breaksConnection(reply:)`).
    var breaksConnection: Bool {
        if case .error(let message) = self { return RedisError.breaksConnection(reply: message) }
        return false
    }
}

/// A change of the live list as viewers hear of it over `GET /api/feed/events`, kept in the
/// event log (a Redis Stream, `RedisKeys.feedEvents`) by the process that made the change. An
/// entry names the change only; the process that sends it renders what viewers get (a
/// preview's item is read and its URLs minted then, so they are fresh).
public enum FeedEvent: Sendable, Equatable {
    /// A preview was published or replaced.
    case preview(streamId: Int64, version: Int64)
    /// A stream's preview left the feed (ended, expired, or deleted).
    case removed(streamId: Int64, version: Int64)
    /// A stream's like count changed.
    case likes(streamId: Int64, count: LikeCount)

    /// The SSE event name.
    public var name: String {
        switch self {
        case .preview: return "preview"
        case .removed: return "removed"
        case .likes: return "likes"
        }
    }

    /// The entry's field-value pairs, for `XADD`.
    public var fields: [String] {
        switch self {
        case .preview(let id, let version), .removed(let id, let version):
            return ["type", name, "stream", String(id), "version", String(version)]
        case .likes(let id, let count):
            return [
                "type", name, "stream", String(id), "likes", String(count.likes), "version", String(count.version),
                "sequence", String(count.sequence),
            ]
        }
    }

    /// nil for an entry this version cannot read (written by a later one, or not ours).
    public init?(fields: [String: String]) {
        guard let type = fields["type"], let stream = fields["stream"].flatMap(StreamID.parse),
            let version = fields["version"].flatMap({ Int64($0) })
        else { return nil }
        switch type {
        case "preview": self = .preview(streamId: stream, version: version)
        case "removed": self = .removed(streamId: stream, version: version)
        case "likes":
            guard let likes = fields["likes"].flatMap({ Int64($0) }),
                let sequence = fields["sequence"].flatMap({ Int64($0) })
            else { return nil }
            self = .likes(streamId: stream, count: LikeCount(likes: likes, version: version, sequence: sequence))
        default: return nil
        }
    }

    /// The data of a `removed` event (`FeedRemovedEvent` in proto3 JSON: int64 as strings).
    public static func removedJSON(streamId: Int64, version: Int64) -> [UInt8] {
        Array("{\"streamId\":\"\(streamId)\",\"previewVersion\":\"\(version)\"}".utf8)
    }

    /// The data of a `likes` event (`FeedLikesEvent` in proto3 JSON).
    public static func likesJSON(streamId: Int64, likes: Int64) -> [UInt8] {
        Array("{\"streamId\":\"\(streamId)\",\"likes\":\"\(likes)\"}".utf8)
    }
}

/// The ID of an event log entry (`<milliseconds>-<sequence>`, as Redis makes them), ordered
/// as Redis orders them. Also the SSE event `id`, so a client's `Last-Event-ID` is one.
public struct FeedEventID: Sendable, Comparable, Hashable, CustomStringConvertible {
    public var milliseconds: UInt64
    public var sequence: UInt64

    public init(milliseconds: UInt64, sequence: UInt64) {
        self.milliseconds = milliseconds
        self.sequence = sequence
    }

    /// nil unless `text` is exactly `<digits>-<digits>` (each fitting 64 bits), as Redis writes it.
    public init?(_ text: some StringProtocol) {
        guard text.utf8.count <= 41, let dash = text.firstIndex(of: "-"),
            let milliseconds = Self.number(text[..<dash]), let sequence = Self.number(text[text.index(after: dash)...])
        else { return nil }
        self.init(milliseconds: milliseconds, sequence: sequence)
    }

    private static func number(_ digits: some StringProtocol) -> UInt64? {
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return UInt64(digits)
    }

    public static let zero = FeedEventID(milliseconds: 0, sequence: 0)

    public var description: String { "\(milliseconds)-\(sequence)" }

    public static func < (lhs: FeedEventID, rhs: FeedEventID) -> Bool {
        (lhs.milliseconds, lhs.sequence) < (rhs.milliseconds, rhs.sequence)
    }
}

/// The `text/event-stream` framing (WHATWG HTML, server-sent events).
public enum ServerSentEvents {
    /// One event; `data` must hold no line break (our JSON never does).
    public static func event(id: FeedEventID?, name: String, data: [UInt8]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(data.count + name.utf8.count + 48)
        if let id { bytes += Array("id: \(id)\n".utf8) }
        bytes += Array("event: \(name)\n".utf8)
        bytes += Array("data: ".utf8)
        bytes += data
        bytes += [10, 10]
        return bytes
    }

    /// A comment line: keeps proxies from closing a quiet stream, and finds clients that left.
    public static let heartbeat: [UInt8] = Array(": keep-alive\n\n".utf8)

    /// The first bytes of a stream: how long a client waits before reconnecting.
    public static func opening(retryMilliseconds: Int) -> [UInt8] {
        Array("retry: \(retryMilliseconds)\n: connected\n\n".utf8)
    }

    /// Tells the client it missed more than the log still holds: reload the feed.
    public static func reset(id: FeedEventID?) -> [UInt8] {
        event(id: id, name: "reset", data: Array("{}".utf8))
    }
}

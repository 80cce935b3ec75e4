/// A change to the live list announced on `RedisKeys.feedChanges` by the process that made it,
/// published from inside the script that made it (so messages come in the order of the
/// changes). Text: `<origin> liked <stream> <likes> <version> <sequence>` (a `LikeCount`),
/// `<origin> published <stream> <version>`, `<origin> removed <stream> <version>`; `origin`
/// names the process, which skips its own.
public struct FeedChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case liked, published, removed
    }

    public var origin: String
    public var kind: Kind
    public var streamId: Int64
    /// The like count (`liked`) or the preview version (`published`, `removed`).
    public var value: Int64
    /// `liked`: the version and sequence of the count (`LikeCount`); 0 otherwise.
    public var version: Int64 = 0
    public var sequence: Int64 = 0

    public init(origin: String, kind: Kind, streamId: Int64, value: Int64, version: Int64 = 0, sequence: Int64 = 0) {
        self.origin = origin
        self.kind = kind
        self.streamId = streamId
        self.value = value
        self.version = version
        self.sequence = sequence
    }

    /// The message that tells every process the event log has new entries (`FeedEvent`):
    /// `<origin> events`. Not a change of the list: `init(message:)` reads it as nil.
    public static func eventsMessage(origin: String) -> String { "\(origin) events" }

    /// True for an `eventsMessage`.
    public static func isEventsMessage(_ message: String) -> Bool { message.hasSuffix(" events") }

    /// The message up to the values, which the script appends: `<origin> <kind> <stream>`.
    public static func prefix(origin: String, kind: Kind, streamId: Int64) -> String {
        "\(origin) \(kind.rawValue) \(streamId)"
    }

    /// The like count a `liked` change carries.
    public var likeCount: LikeCount { LikeCount(likes: value, version: version, sequence: sequence) }

    /// nil for anything that is not a well-formed change.
    public init?(message: String) {
        let parts = message.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count >= 4, !parts[0].isEmpty, let kind = Kind(rawValue: String(parts[1])),
            parts.count == (kind == .liked ? 6 : 4), let stream = StreamID.parse(String(parts[2]))
        else { return nil }
        let numbers = parts[3...].compactMap { Int64($0) }.filter { $0 >= 0 }
        guard numbers.count == parts.count - 3 else { return nil }
        self.init(origin: String(parts[0]), kind: kind, streamId: stream, value: numbers[0])
        if kind == .liked {
            version = numbers[1]
            sequence = numbers[2]
        }
    }
}

/// A change to the live list announced on `RedisKeys.feedChanges` by the process that made it,
/// published from inside the script that made it (so messages come in the order of the
/// changes). Text: `<origin> liked <stream> <likes>`, `<origin> published <stream> <version>`,
/// `<origin> removed <stream> <version>`; `origin` names the process, which skips its own.
public struct FeedChange: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case liked, published, removed
    }

    public var origin: String
    public var kind: Kind
    public var streamId: Int64
    /// The like count (`liked`) or the preview version (`published`, `removed`).
    public var value: Int64

    public init(origin: String, kind: Kind, streamId: Int64, value: Int64) {
        self.origin = origin
        self.kind = kind
        self.streamId = streamId
        self.value = value
    }

    /// The message up to the value, which the script appends: `<origin> <kind> <stream>`.
    public static func prefix(origin: String, kind: Kind, streamId: Int64) -> String {
        "\(origin) \(kind.rawValue) \(streamId)"
    }

    /// nil for anything that is not a well-formed change.
    public init?(message: String) {
        let parts = message.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, !parts[0].isEmpty, let kind = Kind(rawValue: String(parts[1])),
            let stream = StreamID.parse(String(parts[2])), let value = Int64(parts[3]), value >= 0
        else { return nil }
        self.init(origin: String(parts[0]), kind: kind, streamId: stream, value: value)
    }
}

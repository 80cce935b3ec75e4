/// A live stream as every viewer sees it: its preview and its like count.
public struct LiveStream: Sendable, Equatable {
    public var preview: PreviewRecord
    public var likes: Int64
    /// The preview's like changes so far when `likes` was read (`LikeCount.sequence`).
    public var likeSequence: Int64
    /// `FeedRanking.openScore` of the live version's figures, read only when the feed ranks by
    /// opens; a version nobody has seen yet scores the prior.
    public var openScore = FeedRanking.priorRate

    public init(preview: PreviewRecord, likes: Int64, likeSequence: Int64 = 0) {
        self.preview = preview
        self.likes = likes
        self.likeSequence = likeSequence
    }

    /// A preview hash as Redis holds it, with the like count read after it; nil when the hash
    /// is not a preview.
    public init?(streamId: Int64, fields: [String: String], likes: Int64) {
        guard let preview = PreviewRecord(streamId: streamId, fields: fields) else { return nil }
        let sequence = fields[LikeCount.sequenceField].flatMap { Int64($0) } ?? 0
        self.init(preview: preview, likes: likes, likeSequence: sequence)
    }
}

/// A stream's like count as of one like change: the preview version it was made on and the
/// change's number within that version (the like script counts them in the preview hash's
/// `likeSeq` field; a new version starts again from 0). Counts reach a process out of order
/// (two likes answered on different threads, a change heard over pub/sub after this process's
/// own later one), so a count replaces another only when it is newer.
public struct LikeCount: Sendable, Equatable {
    public static let sequenceField = "likeSeq"

    public var likes: Int64
    public var version: Int64
    public var sequence: Int64

    public init(likes: Int64, version: Int64, sequence: Int64) {
        self.likes = likes
        self.version = version
        self.sequence = sequence
    }

    /// Whether this count was made after the one read at `version` and `sequence`.
    public func isNewer(thanVersion version: Int64, sequence: Int64) -> Bool {
        self.version == version ? self.sequence > sequence : self.version > version
    }
}

/// A live stream as every viewer sees it: its preview and its like count.
public struct LiveStream: Sendable, Equatable {
    public var preview: PreviewRecord
    public var likes: Int64

    public init(preview: PreviewRecord, likes: Int64) {
        self.preview = preview
        self.likes = likes
    }
}

/// What one viewer has seen (stream ID → preview version) and liked.
public struct ViewerState: Sendable, Equatable {
    public var seenVersions: [Int64: Int64]
    public var liked: Set<Int64>

    public init(seenVersions: [Int64: Int64] = [:], liked: Set<Int64> = []) {
        self.seenVersions = seenVersions
        self.liked = liked
    }

    public static let anonymous = ViewerState()

    /// Seen is per preview version: a new clip makes the stream unseen again.
    public func hasSeen(_ preview: PreviewRecord) -> Bool {
        seenVersions[preview.streamId] == preview.version
    }
}

/// One feed entry before its URLs are minted.
public struct RankedStream: Sendable, Equatable {
    public var stream: LiveStream
    public var seen: Bool
    public var liked: Bool
}

public enum Ranking {
    /// The play order: unseen first (newest commit first, then likes descending, then stream ID),
    /// then seen (likes descending, then newest, then stream ID). Deterministic, so caches and
    /// tests agree. `current`, if live, is moved to the head so a refresh never yanks the clip
    /// being played. Previews expired at `now` are left out.
    public static func playOrder(
        live: [LiveStream], viewer: ViewerState, current: Int64?, now: Int64, limit: Int
    ) -> [RankedStream] {
        var unseen: [RankedStream] = []
        var seen: [RankedStream] = []
        for stream in live where stream.preview.expiresAt > now {
            let isSeen = viewer.hasSeen(stream.preview)
            let entry = RankedStream(
                stream: stream, seen: isSeen, liked: viewer.liked.contains(stream.preview.streamId))
            if isSeen { seen.append(entry) } else { unseen.append(entry) }
        }
        unseen.sort { a, b in
            let (x, y) = (a.stream, b.stream)
            if x.preview.updatedAt != y.preview.updatedAt { return x.preview.updatedAt > y.preview.updatedAt }
            if x.likes != y.likes { return x.likes > y.likes }
            return x.preview.streamId < y.preview.streamId
        }
        seen.sort { a, b in
            let (x, y) = (a.stream, b.stream)
            if x.likes != y.likes { return x.likes > y.likes }
            if x.preview.updatedAt != y.preview.updatedAt { return x.preview.updatedAt > y.preview.updatedAt }
            return x.preview.streamId < y.preview.streamId
        }
        var ordered = unseen + seen
        if let current, let index = ordered.firstIndex(where: { $0.stream.preview.streamId == current }) {
            ordered.insert(ordered.remove(at: index), at: 0)
        }
        return Array(ordered.prefix(max(0, limit)))
    }
}

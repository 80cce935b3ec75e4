/// The logic of a strip of live previews, as the viewer page plays them, without any view: cells
/// in the feed's play order, one clip playing at a time, the next one starting when it ends
/// (round robin, wrapping), a stalled or failed clip skipped, the playing cell the one to centre,
/// and live events applied without interrupting the clip that plays. A plain value: the app's
/// view (SwiftUI, UIKit) renders it and reports playback to it.
public struct LivePreviewStrip: Sendable, Hashable {
    /// The clip that plays: fixed when it started, so a newer preview of the stream (new URLs)
    /// does not interrupt it; the new clip plays the next time round.
    public struct Playing: Sendable, Hashable {
        public var streamId: Int64
        public var previewVersion: Int64
        public var movieUrl: String
        /// Counts the plays of the strip, so a clip that plays again (alone in the strip) is
        /// another value: a view keyed on `playing` starts it again.
        public var turn: Int

        public init(streamId: Int64, previewVersion: Int64, movieUrl: String, turn: Int = 0) {
            self.streamId = streamId
            self.previewVersion = previewVersion
            self.movieUrl = movieUrl
            self.turn = turn
        }
    }

    /// What the app does after a change.
    public enum FollowUp: Sendable, Hashable {
        case none
        /// The server could not replay what was missed (`reset`): read the feed and `load` it.
        case reloadFeed
    }

    /// The cells, in play order.
    public private(set) var items: [FeedItem] = []
    /// The clip playing, if any.
    public private(set) var playing: Playing?
    /// Clips started so far.
    private var turns = 0

    public init(items: [FeedItem] = []) {
        load(items)
    }

    /// The index in `items` of the playing cell: the one to keep in the centre.
    public var currentPlayIndex: Int? {
        guard let playing else { return nil }
        return items.firstIndex { $0.streamId == playing.streamId }
    }

    /// Replaces the cells with a feed read (its order is the play order; `liked` and `seen` are the
    /// reader's). The clip that plays goes on while its stream is live; else the next one still
    /// live (after it in the old order, wrapping) plays; else the first.
    public mutating func load(_ feed: [FeedItem]) {
        var seenIds = Set<Int64>()
        let fresh = feed.filter { seenIds.insert($0.streamId).inserted }
        let previous = items
        items = fresh
        guard let current = playing else {
            startFirst()
            return
        }
        if seenIds.contains(current.streamId) { return }
        playing = nil
        if let start = previous.firstIndex(where: { $0.streamId == current.streamId }) {
            for offset in 1..<max(previous.count, 1) {
                let candidate = previous[(start + offset) % previous.count].streamId
                if seenIds.contains(candidate) { return play(stream: candidate) }
            }
        }
        startFirst()
    }

    /// Applies a live change: a new stream's cell goes at the end, a known one is updated in place
    /// (a preview older than the one shown changes nothing but the count), an ended stream's cell
    /// leaves (its successor plays if it was playing), counts change. The playing clip goes on.
    @discardableResult
    public mutating func apply(_ change: FeedChange) -> FollowUp {
        switch change {
        case .preview(let item):
            if let index = index(of: item.streamId) {
                let old = items[index]
                if item.previewVersion >= old.previewVersion {
                    var updated = item
                    // Event items carry no viewer flags: the like stays; a new version is unseen.
                    updated.liked = old.liked
                    updated.seen = item.previewVersion == old.previewVersion ? old.seen : false
                    items[index] = updated
                } else {
                    items[index].likes = item.likes
                }
            } else {
                items.append(item)
                if playing == nil { startFirst() }
            }
        case .removed(let streamId, let previewVersion):
            guard let index = index(of: streamId), items[index].previewVersion <= previewVersion else { break }
            let wasPlaying = playing?.streamId == streamId
            let next = wasPlaying ? following(index) : nil
            items.remove(at: index)
            if wasPlaying {
                playing = nil
                if let next, next != streamId { play(stream: next) }
            }
        case .likes(let streamId, let likes):
            if let index = index(of: streamId) { items[index].likes = likes }
        case .reset:
            return .reloadFeed
        }
        return .none
    }

    /// The clip of `streamId` played to its end: the next cell plays (round robin). Returns the
    /// stream to mark seen (`markSeen(stream:)`) when the version that played is still the
    /// stream's current one and not seen yet; it is taken as seen from now on.
    @discardableResult
    public mutating func playedToEnd(stream streamId: Int64) -> Int64? {
        guard let current = playing, current.streamId == streamId, let index = index(of: streamId) else { return nil }
        var toMark: Int64?
        if items[index].previewVersion == current.previewVersion, !items[index].seen {
            items[index].seen = true
            toMark = streamId
        }
        advance(from: index)
        return toMark
    }

    /// The clip of `streamId` stopped making progress or failed to load: the next cell plays.
    public mutating func skip(stream streamId: Int64) {
        guard playing?.streamId == streamId, let index = index(of: streamId) else { return }
        advance(from: index)
    }

    /// The viewer chose a cell: its current clip plays now.
    public mutating func play(stream streamId: Int64) {
        guard let item = items.first(where: { $0.streamId == streamId }) else { return }
        playing = Playing(
            streamId: item.streamId, previewVersion: item.previewVersion, movieUrl: item.movieUrl,
            turn: turns + 1)
        turns += 1
    }

    /// Sets the caller's like of a stream and its count (the answer of `like`/`unlike`).
    public mutating func setLike(stream streamId: Int64, _ state: LikeState) {
        guard let index = index(of: streamId) else { return }
        items[index].likes = state.likes
        items[index].liked = state.liked
    }

    private func index(of streamId: Int64) -> Int? {
        items.firstIndex { $0.streamId == streamId }
    }

    /// The stream after `index`, wrapping; the same one when it is alone.
    private func following(_ index: Int) -> Int64? {
        items.isEmpty ? nil : items[(index + 1) % items.count].streamId
    }

    private mutating func advance(from index: Int) {
        if let next = following(index) { play(stream: next) }
    }

    private mutating func startFirst() {
        if let first = items.first { play(stream: first.streamId) } else { playing = nil }
    }
}

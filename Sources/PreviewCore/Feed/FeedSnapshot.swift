/// The live streams as every viewer sees them, rendered and ranked once: item templates with
/// URLs of one grid window, like counts, and the two global orders of the play order as index
/// lists. The play order: unseen first (newest commit first, then likes descending, then stream
/// ID), then seen (likes descending, then newest, then stream ID; with `FeedRanking.opens`, open
/// score first); deterministic, so caches and tests agree. Seen is per preview version: a new clip makes a stream unseen again. Immutable, so request threads share it without locks; a change
/// (a like, a publish, an end of stream) makes a new snapshot that shares the unchanged parts.
public final class FeedSnapshot: Sendable {
    /// One live preview and its rendered item.
    public struct Entry: Sendable {
        public let preview: PreviewRecord
        public let template: FeedItemTemplate
    }

    /// An entry's stream, preview version and expiry.
    struct EntryKey: Equatable {
        let streamId: Int64
        let version: Int64
        let expiresAt: Int64
    }

    /// The entries' keys, and by its identity the snapshot's membership: snapshots that share
    /// one hold the same previews at the same indices (likes may differ), so what a viewer has
    /// seen of one (`SeenEntries`) holds for all. A like keeps it; a publish or a removal makes
    /// a new one; a reload that finds the same previews keeps the previous one.
    public final class Membership: Sendable {
        let keys: [EntryKey]

        init(_ entries: [Entry]) {
            keys = entries.map {
                EntryKey(streamId: $0.preview.streamId, version: $0.preview.version, expiresAt: $0.preview.expiresAt)
            }
        }
    }

    /// The grid signing time the entries' URLs were minted for.
    public let signingTime: Int64
    /// When the live list was read from Redis (patches keep it).
    public let loadedAtMilliseconds: Int64
    /// Entries by index; an entry left out of `indexById` is gone (removed by a patch).
    let entries: [Entry]
    /// What the play order reads of each entry, by index, packed apart from the records; shared
    /// by the snapshots of one membership.
    let membership: Membership
    var keys: [EntryKey] { membership.keys }
    let likes: [Int64]
    /// `LiveStream.likeSequence` of each entry's like count, which orders later counts.
    let likeSequences: [Int64]
    /// Each entry's `LiveStream.openScore` when seen streams rank by opens; nil by likes.
    let openScores: [Double]?
    let indexById: [Int64: Int32]
    /// Indices in the order of unseen streams: newest commit, then likes, then stream ID.
    let unseenOrder: [Int32]
    /// Indices in the order of seen streams: (open score,) likes, then newest commit, then stream ID.
    let seenOrder: [Int32]

    /// Renders `streams`, reusing the templates of `previous` for unchanged previews of the same
    /// signing window. `render` mints an item's URLs into its template.
    public convenience init(
        streams: [LiveStream], signingTime: Int64, loadedAtMilliseconds: Int64, reusing previous: FeedSnapshot?,
        ranking: FeedRanking = .likes, render: (LiveStream) throws -> FeedItemTemplate
    ) rethrows {
        let reusable = previous?.signingTime == signingTime ? previous : nil
        var entries: [Entry] = []
        entries.reserveCapacity(streams.count)
        var indexById: [Int64: Int32] = [:]
        indexById.reserveCapacity(streams.count)
        var likes: [Int64] = []
        likes.reserveCapacity(streams.count)
        var likeSequences: [Int64] = []
        likeSequences.reserveCapacity(streams.count)
        var openScores: [Double]? = ranking == .opens ? [] : nil
        for stream in streams where indexById[stream.preview.streamId] == nil {
            let id = stream.preview.streamId
            let template: FeedItemTemplate
            if let old = reusable?.entry(streamId: id), old.preview == stream.preview,
                old.template.validUntil > loadedAtMilliseconds / 1000
            {
                template = old.template
            } else {
                template = try render(stream)
            }
            indexById[id] = Int32(entries.count)
            entries.append(Entry(preview: stream.preview, template: template))
            likes.append(stream.likes)
            likeSequences.append(stream.likeSequence)
            openScores?.append(stream.openScore)
        }
        let all = (0..<Int32(entries.count)).map { $0 }
        var membership = Membership(entries)
        if let previous, previous.indexById.count == previous.entries.count, previous.keys == membership.keys {
            membership = previous.membership
        }
        self.init(
            signingTime: signingTime, loadedAtMilliseconds: loadedAtMilliseconds, entries: entries, likes: likes,
            likeSequences: likeSequences, openScores: openScores, indexById: indexById, membership: membership,
            unseenOrder: all.sorted { Self.unseenPrecedes($0, $1, entries, likes) },
            seenOrder: all.sorted { Self.seenPrecedes($0, $1, entries, likes, openScores) })
    }

    init(
        signingTime: Int64, loadedAtMilliseconds: Int64, entries: [Entry], likes: [Int64], likeSequences: [Int64],
        openScores: [Double]?, indexById: [Int64: Int32], membership: Membership? = nil, unseenOrder: [Int32],
        seenOrder: [Int32]
    ) {
        self.signingTime = signingTime
        self.loadedAtMilliseconds = loadedAtMilliseconds
        self.entries = entries
        self.membership = membership ?? Membership(entries)
        self.likes = likes
        self.likeSequences = likeSequences
        self.openScores = openScores
        self.indexById = indexById
        self.unseenOrder = unseenOrder
        self.seenOrder = seenOrder
    }

    /// Live streams in the snapshot (expired ones included until the next load).
    public var count: Int { indexById.count }

    public func entry(streamId: Int64) -> Entry? {
        indexById[streamId].map { entries[Int($0)] }
    }

    public func likes(streamId: Int64) -> Int64? {
        indexById[streamId].map { likes[Int($0)] }
    }

    // MARK: Orders

    static func unseenPrecedes(_ a: Int32, _ b: Int32, _ entries: [Entry], _ likes: [Int64]) -> Bool {
        let (x, y) = (entries[Int(a)].preview, entries[Int(b)].preview)
        if x.updatedAt != y.updatedAt { return x.updatedAt > y.updatedAt }
        if likes[Int(a)] != likes[Int(b)] { return likes[Int(a)] > likes[Int(b)] }
        return x.streamId < y.streamId
    }

    static func seenPrecedes(
        _ a: Int32, _ b: Int32, _ entries: [Entry], _ likes: [Int64], _ openScores: [Double]?
    ) -> Bool {
        let (x, y) = (entries[Int(a)].preview, entries[Int(b)].preview)
        if let scores = openScores, scores[Int(a)] != scores[Int(b)] { return scores[Int(a)] > scores[Int(b)] }
        if likes[Int(a)] != likes[Int(b)] { return likes[Int(a)] > likes[Int(b)] }
        if x.updatedAt != y.updatedAt { return x.updatedAt > y.updatedAt }
        return x.streamId < y.streamId
    }
}

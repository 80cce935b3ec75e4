/// One viewer's state of one stream: the preview version seen (nil: never) and the like.
public struct ViewerFlags: Sendable, Equatable {
    public var seenVersion: Int64?
    public var liked: Bool

    public init(seenVersion: Int64? = nil, liked: Bool = false) {
        self.seenVersion = seenVersion
        self.liked = liked
    }
}

/// One item of a viewer's feed: an entry of the snapshot and the viewer's flags for it.
public struct FeedPick: Sendable, Equatable {
    public let streamId: Int64
    let index: Int32
    public let seen: Bool
    public let liked: Bool
}

extension FeedSnapshot {
    /// A viewer's feed in play order, at most `limit` items, for a viewer whose flags must be
    /// asked for. `current`, if live, is moved to the head so a refresh never yanks the clip
    /// being played; previews expired at `now` are left out. `flags` is asked only about the
    /// streams that can decide it: the first 2×limit+24 unseen-order candidates (and `current`);
    /// only when those hold fewer than `limit` unseen streams, about the next ones, in batches
    /// four times larger each time.
    public func playOrder<Failure: Error>(
        now: Int64, limit: Int, current: Int64?,
        flags: (_ streamIds: [Int64]) throws(Failure) -> [ViewerFlags]
    ) throws(Failure) -> [FeedPick] {
        try withoutActuallyEscaping(flags) { (flags) throws(Failure) -> [FeedPick] in
            var viewer = AskedViewer(
                snapshot: self, now: now, currentIndex: liveIndex(of: current, now: now), batchSize: 2 * limit + 24,
                ask: flags)
            return try walk(now: now, limit: limit, current: current, viewer: &viewer)
        }
    }

    /// The same play order for a viewer whose whole history is at hand (held by the process, or
    /// empty for an anonymous viewer), with the `liked` set asked only about the streams
    /// picked. Without `seen`, each live stream walked costs a probe of `history.seen`, so a
    /// viewer who has seen every live stream costs one per live stream; with `seen` (made from
    /// `history` for this snapshot's membership) a walk reads bits, and one that has seen them
    /// all skips to the seen order at once.
    public func playOrder(now: Int64, limit: Int, current: Int64?, history: ViewerHistory, seen: SeenEntries? = nil)
        -> [FeedPick]
    {
        precondition(seen.map { $0.membership === membership } ?? true, "SeenEntries of another membership")
        var viewer = HeldViewer(keys: keys, history: history, seen: seen, entryCount: indexById.count)
        return walk(now: now, limit: limit, current: current, viewer: &viewer)
    }

    /// The one play-order walk: `current` first, then the live unseen streams in unseen order,
    /// then, when those are fewer than wanted, the live seen ones in seen order. The viewer is
    /// asked about entries in that order only, so a viewer that fetches flags can fetch them in
    /// batches along the unseen order.
    private func walk<Viewer: PlayOrderViewer>(now: Int64, limit: Int, current: Int64?, viewer: inout Viewer)
        throws(Viewer.Failure) -> [FeedPick]
    {
        guard limit > 0 else { return [] }
        let currentIndex = liveIndex(of: current, now: now)
        let wanted = currentIndex == nil ? limit : limit - 1
        var picks: [FeedPick] = []
        picks.reserveCapacity(limit)
        func pick(_ index: Int32, at position: Int?, seen: Bool) -> FeedPick {
            FeedPick(
                streamId: keys[Int(index)].streamId, index: index, seen: seen,
                liked: viewer.liked(index, at: position))
        }
        if let currentIndex {
            picks.append(pick(currentIndex, at: nil, seen: try viewer.seen(currentIndex, at: nil)))
        }
        guard wanted > 0 else { return picks }
        var taken = 0
        if !viewer.seesEveryEntry {
            for (position, index) in unseenOrder.enumerated() where index != currentIndex && isLive(index, now: now) {
                guard try !viewer.seen(index, at: position) else { continue }
                picks.append(pick(index, at: position, seen: false))
                taken += 1
                if taken == wanted { return picks }
            }
        }
        // Fewer unseen than wanted: the seen ones follow in seen order (rare: a viewer who has
        // seen nearly every live stream).
        for index in seenOrder where index != currentIndex && isLive(index, now: now) {
            guard try viewer.seen(index, at: nil) else { continue }
            picks.append(pick(index, at: nil, seen: true))
            taken += 1
            if taken == wanted { break }
        }
        return picks
    }

    /// The entry of `streamId` when it is in the snapshot and live at `now`.
    private func liveIndex(of streamId: Int64?, now: Int64) -> Int32? {
        streamId.flatMap { indexById[$0] }.flatMap { isLive($0, now: now) ? $0 : nil }
    }

    /// The entries `history` has seen at their current version, for `playOrder(history:seen:)`:
    /// `held` when it is of this membership already, else made in one probe of this snapshot
    /// per stream the viewer has seen.
    public func seenEntries(_ history: ViewerHistory, reusing held: SeenEntries?) -> SeenEntries {
        if let held, held.membership === membership { return held }
        var bits = [UInt64](repeating: 0, count: (entries.count + 63) / 64)
        var count = 0
        for (streamId, version) in history.seen {
            guard let index = indexById[streamId], keys[Int(index)].version == version else { continue }
            bits[Int(index) >> 6] |= 1 << UInt64(index & 63)
            count += 1
        }
        return SeenEntries(membership: membership, bits: bits, count: count)
    }

    fileprivate func isLive(_ index: Int32, now: Int64) -> Bool {
        keys[Int(index)].expiresAt > now
    }

    /// The `FeedResponse` of `picks`, byte-equal to `FeedResponse(items:)` in the same format,
    /// and its strong entity tag: a digest of the items' digests, like counts, flags and the
    /// format, so equal bodies get equal tags in any process and any change of the bytes changes
    /// the tag, without hashing the whole body per request.
    public func answer(_ picks: [FeedPick], format: WireFormat, crypto: some CryptoPrimitives)
        -> (body: [UInt8], entityTag: String)
    {
        var body: [UInt8] = []
        var tagInput: [UInt8] = [format == .json ? 1 : 2]
        tagInput.reserveCapacity(1 + picks.count * 25)
        // One pass, through a buffer whose elements are borrowed in place: an array's subscript
        // copies the whole entry, and every template read is a retain and a release of an object
        // all request threads share, which costs most when their cores contend for it.
        entries.withUnsafeBufferPointer { entries in
            if format == .json { body.append(contentsOf: Self.jsonOpen) }
            for (number, pick) in picks.enumerated() {
                let template = entries[Int(pick.index)].template
                let likes = likes[Int(pick.index)]
                if number == 0 { body.reserveCapacity(16 + picks.count * template.estimatedSize) }
                switch format {
                case .json:
                    if number > 0 { body.append(UInt8(ascii: ",")) }
                    template.appendJSON(to: &body, likes: likes, liked: pick.liked, seen: pick.seen)
                case .protobuf:
                    template.appendProtobufField(to: &body, likes: likes, liked: pick.liked, seen: pick.seen)
                }
                template.appendDigest(to: &tagInput)
                FeedItemTemplate.appendLittleEndian(UInt64(bitPattern: likes), to: &tagInput)
                tagInput.append((pick.liked ? 1 : 0) | (pick.seen ? 2 : 0))
            }
            if format == .json { body.append(contentsOf: Self.jsonClose) }
        }
        return (body, "\"" + Hex.encode(crypto.sha256(tagInput).prefix(16)) + "\"")
    }

    private static let jsonOpen = Array("{\"items\":[".utf8)
    private static let jsonClose = Array("]}".utf8)
}

/// Which entries of one snapshot membership a viewer has seen at their current version, as
/// bits by entry index: a viewer's feeds read it instead of probing their history once per
/// live stream, for as long as the membership and the history stay the same.
public final class SeenEntries: Sendable {
    let membership: FeedSnapshot.Membership
    let bits: [UInt64]
    /// Entries seen (bits set).
    let count: Int

    init(membership: FeedSnapshot.Membership, bits: [UInt64], count: Int) {
        self.membership = membership
        self.bits = bits
        self.count = count
    }

    func contains(_ index: Int32) -> Bool {
        bits[Int(index) >> 6] & (1 << UInt64(index & 63)) != 0
    }

    /// Bytes held, for a cache's accounting.
    public var size: Int { bits.count * 8 }
}

/// What the play-order walk asks about one viewer. `position` is the entry's place in the
/// unseen order while the walk is in it, nil for `current` and in the seen order.
private protocol PlayOrderViewer {
    associatedtype Failure: Error
    /// Whether the viewer has seen the entry's current preview version.
    mutating func seen(_ index: Int32, at position: Int?) throws(Failure) -> Bool
    /// Whether the viewer likes the entry's stream; asked only after `seen` of the same entry.
    func liked(_ index: Int32, at position: Int?) -> Bool
    /// True when every entry is known to be seen: the walk goes straight to the seen order.
    var seesEveryEntry: Bool { get }
}

/// A viewer whose history is at hand: seen versions (or their bits) and liked streams.
private struct HeldViewer: PlayOrderViewer {
    let keys: [FeedSnapshot.EntryKey]
    let history: ViewerHistory
    let seen: SeenEntries?
    let entryCount: Int

    func seen(_ index: Int32, at position: Int?) -> Bool {
        if let seen { return seen.contains(index) }
        let key = keys[Int(index)]
        return !history.seen.isEmpty && history.seen[key.streamId] == key.version
    }

    func liked(_ index: Int32, at position: Int?) -> Bool {
        history.liked.contains(keys[Int(index)].streamId)
    }

    var seesEveryEntry: Bool { seen.map { $0.count >= entryCount } ?? false }
}

/// A viewer whose flags are asked for in batches along the unseen order: the first batch also
/// asks about `current`; flags are kept by unseen-order position, so a request needs no hash
/// table until the rare walk into the seen order.
private struct AskedViewer<Failure: Error>: PlayOrderViewer {
    let snapshot: FeedSnapshot
    let now: Int64
    let currentIndex: Int32?
    var batchSize: Int
    let ask: (_ streamIds: [Int64]) throws(Failure) -> [ViewerFlags]
    /// Flags by position in the unseen order, as far as asked (default where not asked:
    /// expired, or current).
    private var flagsAtPosition: [ViewerFlags] = []
    private var currentFlags = ViewerFlags()
    private var askedBefore = false
    /// Flags by entry index, made once the walk reaches the seen order.
    private var flagsByIndex: [ViewerFlags]?

    init(
        snapshot: FeedSnapshot, now: Int64, currentIndex: Int32?, batchSize: Int,
        ask: @escaping (_ streamIds: [Int64]) throws(Failure) -> [ViewerFlags]
    ) {
        self.snapshot = snapshot
        self.now = now
        self.currentIndex = currentIndex
        self.batchSize = batchSize
        self.ask = ask
    }

    var seesEveryEntry: Bool { false }

    mutating func seen(_ index: Int32, at position: Int?) throws(Failure) -> Bool {
        try flags(index, at: position).seenVersion == snapshot.keys[Int(index)].version
    }

    /// Asked only after `seen` of the same entry, so its flags are known.
    func liked(_ index: Int32, at position: Int?) -> Bool {
        if index == currentIndex { return currentFlags.liked }
        if let position { return flagsAtPosition[position].liked }
        return flagsByIndex?[Int(index)].liked ?? false
    }

    private mutating func flags(_ index: Int32, at position: Int?) throws(Failure) -> ViewerFlags {
        if !askedBefore || (position ?? -1) >= flagsAtPosition.count {
            if askedBefore { batchSize *= 4 }  // a viewer who has seen most streams: few, growing batches
            try askNextBatch()
        }
        if index == currentIndex { return currentFlags }
        if let position { return flagsAtPosition[position] }
        if flagsByIndex == nil {
            var byIndex = [ViewerFlags](repeating: ViewerFlags(), count: snapshot.entries.count)
            for (position, flags) in flagsAtPosition.enumerated() where flags.seenVersion != nil || flags.liked {
                byIndex[Int(snapshot.unseenOrder[position])] = flags
            }
            flagsByIndex = byIndex
        }
        return flagsByIndex?[Int(index)] ?? ViewerFlags()
    }

    /// Asks about the next `batchSize` live candidates of the unseen order (and, the first
    /// time, about `current`).
    private mutating func askNextBatch() throws(Failure) {
        let unseenOrder = snapshot.unseenOrder
        var positions: [Int] = []
        var streamIds: [Int64] = []
        streamIds.reserveCapacity(min(batchSize, unseenOrder.count) + 1)
        let firstPosition = flagsAtPosition.count
        let asksForCurrent = currentIndex != nil && !askedBefore
        askedBefore = true
        if let currentIndex, asksForCurrent { streamIds.append(snapshot.keys[Int(currentIndex)].streamId) }
        var position = firstPosition
        while position < unseenOrder.count, positions.count < batchSize {
            let index = unseenOrder[position]
            if snapshot.isLive(index, now: now), index != currentIndex {
                positions.append(position)
                streamIds.append(snapshot.keys[Int(index)].streamId)
            }
            position += 1
        }
        flagsAtPosition.append(contentsOf: repeatElement(ViewerFlags(), count: position - firstPosition))
        guard !streamIds.isEmpty else { return }
        let answers = try ask(streamIds)
        precondition(answers.count == streamIds.count, "one ViewerFlags per stream asked about")
        var next = answers.startIndex
        if asksForCurrent {
            currentFlags = answers[next]
            next += 1
        }
        for position in positions {
            flagsAtPosition[position] = answers[next]
            next += 1
        }
    }
}

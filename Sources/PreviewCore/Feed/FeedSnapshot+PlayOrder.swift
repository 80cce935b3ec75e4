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
    /// A viewer's feed in play order, at most `limit` items. `current`, if live, is moved to the
    /// head so a refresh never yanks the clip being played; previews expired at `now` are left
    /// out. `flags` is asked only about the streams that can decide it: the first 2×limit+24
    /// unseen-order candidates (and `current`); only when those hold fewer than `limit` unseen
    /// streams, about the next ones, in batches four times larger each time.
    public func playOrder(
        now: Int64, limit: Int, current: Int64?, flags: (_ streamIds: [Int64]) throws -> [ViewerFlags]
    ) rethrows -> [FeedPick] {
        guard limit > 0 else { return [] }
        let currentIndex = current.flatMap { indexById[$0] }.flatMap { isLive($0, now: now) ? $0 : nil }
        // Flags by position in unseenOrder (default where not asked: expired, or current), so a
        // request needs no hash table; `currentFlags` apart.
        var flagsAtPosition: [ViewerFlags] = []
        var currentFlags = ViewerFlags()

        func ask(upTo count: Int) throws {
            var positions: [Int] = []
            var streamIds: [Int64] = []
            streamIds.reserveCapacity(min(count, unseenOrder.count) + 1)
            let firstPosition = flagsAtPosition.count
            let asksForCurrent = currentIndex != nil && firstPosition == 0
            if let currentIndex, asksForCurrent { streamIds.append(entries[Int(currentIndex)].preview.streamId) }
            var position = firstPosition
            while position < unseenOrder.count, positions.count < count {
                let index = unseenOrder[position]
                if isLive(index, now: now), index != currentIndex {
                    positions.append(position)
                    streamIds.append(entries[Int(index)].preview.streamId)
                }
                position += 1
            }
            flagsAtPosition.append(contentsOf: repeatElement(ViewerFlags(), count: position - firstPosition))
            guard !streamIds.isEmpty else { return }
            let answers = try flags(streamIds)
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

        func pick(_ index: Int32, _ flags: ViewerFlags) -> FeedPick {
            let preview = entries[Int(index)].preview
            return FeedPick(
                streamId: preview.streamId, index: index, seen: flags.seenVersion == preview.version,
                liked: flags.liked)
        }

        let wanted = currentIndex == nil ? limit : limit - 1
        var picks: [FeedPick] = []
        picks.reserveCapacity(limit)
        var batchSize = 2 * limit + 24
        try ask(upTo: batchSize)
        if let currentIndex { picks.append(pick(currentIndex, currentFlags)) }
        var position = 0
        var taken = 0
        while taken < wanted {
            if position == flagsAtPosition.count {
                guard position < unseenOrder.count else { break }
                batchSize *= 4  // a viewer who has seen most streams: few, growing batches
                try ask(upTo: batchSize)
            }
            let index = unseenOrder[position]
            let candidate = pick(index, flagsAtPosition[position])
            position += 1
            guard index != currentIndex, isLive(index, now: now) else { continue }
            if !candidate.seen {
                picks.append(candidate)
                taken += 1
            }
        }
        guard taken < wanted else { return picks }
        // Fewer unseen than wanted: every live stream's flags are known now; the seen ones follow
        // in seen order (rare: a viewer who has seen nearly every live stream).
        var flagsByIndex = [ViewerFlags](repeating: ViewerFlags(), count: entries.count)
        for (position, flags) in flagsAtPosition.enumerated() where flags.seenVersion != nil {
            flagsByIndex[Int(unseenOrder[position])] = flags
        }
        for index in seenOrder where taken < wanted && index != currentIndex && isLive(index, now: now) {
            let candidate = pick(index, flagsByIndex[Int(index)])
            if candidate.seen {
                picks.append(candidate)
                taken += 1
            }
        }
        return picks
    }

    /// The same play order as `playOrder(now:limit:current:flags:)`, for a viewer whose whole
    /// history is at hand (held by the process, or empty for an anonymous viewer): one walk of
    /// the unseen order over the packed keys, with no batches and no flag arrays; the `liked`
    /// set is asked only about the streams picked. Without `seen`, each live stream walked
    /// costs a probe of `history.seen`, so a viewer who has seen every live stream costs one
    /// per live stream; with `seen` (made from `history` for this snapshot's membership) a
    /// walk reads bits, and one that has seen them all skips to the seen order at once.
    public func playOrder(now: Int64, limit: Int, current: Int64?, history: ViewerHistory, seen: SeenEntries? = nil)
        -> [FeedPick]
    {
        guard limit > 0 else { return [] }
        precondition(seen.map { $0.membership === membership } ?? true, "SeenEntries of another membership")
        let currentIndex = current.flatMap { indexById[$0] }.flatMap { isLive($0, now: now) ? $0 : nil }
        let wanted = currentIndex == nil ? limit : limit - 1
        let versions = history.seen
        func isSeen(_ index: Int32) -> Bool {
            if let seen { return seen.contains(index) }
            let key = keys[Int(index)]
            return !versions.isEmpty && versions[key.streamId] == key.version
        }
        func pick(_ index: Int32, seen: Bool) -> FeedPick {
            let id = keys[Int(index)].streamId
            return FeedPick(streamId: id, index: index, seen: seen, liked: history.liked.contains(id))
        }
        var picks: [FeedPick] = []
        picks.reserveCapacity(limit)
        if let currentIndex { picks.append(pick(currentIndex, seen: isSeen(currentIndex))) }
        guard wanted > 0 else { return picks }
        var taken = 0
        if seen.map({ $0.count < indexById.count }) ?? true {
            for index in unseenOrder where index != currentIndex && isLive(index, now: now) && !isSeen(index) {
                picks.append(pick(index, seen: false))
                taken += 1
                if taken == wanted { return picks }
            }
        }
        // Fewer unseen than wanted: the seen ones follow in seen order.
        for index in seenOrder where index != currentIndex && isLive(index, now: now) && isSeen(index) {
            picks.append(pick(index, seen: true))
            taken += 1
            if taken == wanted { break }
        }
        return picks
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

    private func isLive(_ index: Int32, now: Int64) -> Bool {
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

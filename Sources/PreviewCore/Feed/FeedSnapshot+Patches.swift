/// Changes this process made, applied to a snapshot without reading the live list again: each
/// makes a new snapshot in O(live streams) (array copies and one move in each order, no sort).
extension FeedSnapshot {
    /// A change to the live list that this process knows the result of.
    public enum Patch: Sendable {
        /// A stream's like count as the like script returned or announced it; kept only when
        /// newer than the count held (`LikeCount`).
        case likes(streamId: Int64, count: LikeCount)
        /// A stream's new live preview and its like count; `template` rendered for `signingTime`.
        case published(LiveStream, template: FeedItemTemplate, signingTime: Int64)
        /// A stream's preview left the feed (versions up to `version`).
        case removed(streamId: Int64, version: Int64)
    }

    /// The snapshot with `patch` applied; `self` when it changes nothing here (an unknown
    /// stream, an older version); nil when this snapshot cannot hold it (a preview rendered for
    /// another grid window), so it must be read again.
    public func applying(_ patch: Patch) -> FeedSnapshot? {
        switch patch {
        case .likes(let streamId, let count):
            guard let index = indexById[streamId],
                count.version == entries[Int(index)].preview.version,
                count.isNewer(thanVersion: count.version, sequence: likeSequences[Int(index)])
            else { return self }  // another version's count, or an older one
            var likeSequences = self.likeSequences
            likeSequences[Int(index)] = count.sequence
            var likes = self.likes
            likes[Int(index)] = count.likes
            return reordered(
                index, entries: entries, likes: likes, likeSequences: likeSequences, openScores: openScores,
                indexById: indexById, membership: membership)
        case .published(let stream, let template, let signingTime):
            let id = stream.preview.streamId
            guard signingTime == self.signingTime else { return nil }
            if let old = entry(streamId: id), old.preview.version >= stream.preview.version { return self }
            var entries = self.entries
            var likes = self.likes
            var likeSequences = self.likeSequences
            var openScores = self.openScores
            var indexById = self.indexById
            let entry = Entry(preview: stream.preview, template: template)
            let index: Int32
            if let existing = indexById[id] {
                index = existing
                entries[Int(index)] = entry
                likes[Int(index)] = stream.likes
                likeSequences[Int(index)] = stream.likeSequence
                openScores?[Int(index)] = stream.openScore
            } else {
                index = Int32(entries.count)
                entries.append(entry)
                likes.append(stream.likes)
                likeSequences.append(stream.likeSequence)
                openScores?.append(stream.openScore)
                indexById[id] = index
            }
            return reordered(
                index, entries: entries, likes: likes, likeSequences: likeSequences, openScores: openScores,
                indexById: indexById, membership: nil)
        case .removed(let streamId, let version):
            guard let index = indexById[streamId], entries[Int(index)].preview.version <= version else { return self }
            var indexById = self.indexById
            indexById[streamId] = nil
            return FeedSnapshot(
                signingTime: signingTime, loadedAtMilliseconds: loadedAtMilliseconds, entries: entries, likes: likes,
                likeSequences: likeSequences, openScores: openScores, indexById: indexById,
                unseenOrder: unseenOrder.filter { $0 != index },
                seenOrder: seenOrder.filter { $0 != index })
        }
    }

    /// A snapshot whose orders hold `index` at its place for the new `entries` and `likes`.
    private func reordered(
        _ index: Int32, entries: [Entry], likes: [Int64], likeSequences: [Int64], openScores: [Double]?,
        indexById: [Int64: Int32], membership: Membership?
    ) -> FeedSnapshot {
        FeedSnapshot(
            signingTime: signingTime, loadedAtMilliseconds: loadedAtMilliseconds, entries: entries, likes: likes,
            likeSequences: likeSequences, openScores: openScores, indexById: indexById, membership: membership,
            unseenOrder: Self.moving(index, in: unseenOrder) { Self.unseenPrecedes($0, $1, entries, likes) },
            seenOrder: Self.moving(index, in: seenOrder) { Self.seenPrecedes($0, $1, entries, likes, openScores) })
    }

    /// `order` with `index` taken out and put back where `precedes` says (binary search: the
    /// rest of `order` is still sorted by it).
    private static func moving(_ index: Int32, in order: [Int32], by precedes: (Int32, Int32) -> Bool) -> [Int32] {
        var order = order
        if let position = order.firstIndex(of: index) { order.remove(at: position) }
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if precedes(order[middle], index) { low = middle + 1 } else { high = middle }
        }
        order.insert(index, at: low)
        return order
    }
}

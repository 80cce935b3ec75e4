import PreviewCore
package import PreviewRedis
import Synchronization

/// The seen and liked state of the viewers this process served lately (`ViewerHistory`), so a
/// viewer's feed needs no Redis round trip while nothing of theirs changes.
///
/// It is only as good as the news of changes: this process patches what it holds with its own
/// writes, and forgets a viewer when another process announces a change of theirs
/// (`RedisKeys.viewerChanges`, heard by `FeedChangeListener`). While that subscription is down
/// nothing is held and every feed asks Redis; each new subscription starts from empty, since
/// changes may have been missed meanwhile. A load that a change overtook is used for its own
/// request and not kept. Entries are read again after `maxAgeMilliseconds` (what a missed
/// message could cost, and how long a key Redis expired stays), and the least recently used
/// go when the estimated bytes held pass the budget: per viewer a fixed overhead plus its
/// subject's bytes, 32 bytes per stream seen or liked, and the bytes of a `SeenEntries`.
package final class ViewerHistoryCache: Sendable {
    /// The unit of the budget (`--viewer-cache-entries`): about what one stream seen or liked costs.
    static let bytesPerEntry = 32
    /// What a held viewer costs besides its subject and streams: the table slot, the entry, the
    /// history's two empty collections (measured about 200 bytes).
    static let bytesPerViewer = 200

    private struct Entry {
        var history: ViewerHistory
        var loadedAtMilliseconds: Int64
        /// `uses` when last read: the least recently used go first.
        var lastUse: UInt64
        /// What `history` has seen of a feed snapshot's membership, kept by `remember`.
        var seenEntries: SeenEntries?
        /// `uses` when `history` was loaded or last changed: `remember` keeps only a
        /// `SeenEntries` made from the history as it still is.
        var revision: UInt64

        /// Counted against the budget, in bytes (see `ViewerHistoryCache.cost`).
        var size: Int
    }

    /// The estimated bytes of holding `history` (and `seen`) under `subject`: the subject is
    /// counted, so long subjects cannot make a held viewer cost more than the budget says.
    static func cost(subject: String, history: ViewerHistory, seen: SeenEntries?) -> Int {
        bytesPerViewer + subject.utf8.count + (history.seen.count + history.liked.count) * bytesPerEntry
            + (seen?.size ?? 0)
    }

    /// A viewer's history as `history(subject:nowMilliseconds:)` found it.
    struct Held {
        let history: ViewerHistory
        /// Kept by `remember` for this history, if any (of whatever membership it was made for).
        let seenEntries: SeenEntries?
        /// Which version of the held entry this is; nil when the history was read but not kept.
        let revision: UInt64?
    }

    private struct Shard {
        var entries: [String: Entry] = [:]
        var size = 0
        /// Loads under way, by subject, and the changes made to it since the first began: a load
        /// keeps its result only if no change came after it started (concurrent loads of one
        /// viewer do not spoil one another).
        var loading: [String: (loads: Int, changes: UInt64)] = [:]

        /// `subject` changed: what is held of it goes, and loads under way are not kept.
        mutating func remove(_ subject: String) {
            drop(subject)
            changed(subject)
        }

        mutating func drop(_ subject: String) {
            if let old = entries.removeValue(forKey: subject) { size -= old.size }
        }

        mutating func changed(_ subject: String) {
            loading[subject]?.changes += 1
        }

        /// A load of `subject` begins: the change count it must still see at its end.
        mutating func beginLoad(_ subject: String) -> UInt64 {
            let state = loading[subject] ?? (0, 0)
            loading[subject] = (state.loads + 1, state.changes)
            return state.changes
        }

        /// A load of `subject` ended: whether nothing changed since it began.
        mutating func endLoad(_ subject: String, began changes: UInt64) -> Bool {
            guard let state = loading[subject] else { return false }
            loading[subject] = state.loads > 1 ? (state.loads - 1, state.changes) : nil
            return state.changes == changes
        }
    }

    private let store: PreviewStore
    /// A lock per shard of subjects, so the request threads seldom wait for one another.
    private final class Lock: Sendable {
        let shard = Mutex(Shard())
    }

    private let shards: [Lock]
    private let shardBudget: Int
    private let maxAgeMilliseconds: Int64
    /// Whether changes are being heard; bumped on every change of it, so a load that began
    /// under another subscription is not kept.
    private let epoch = Atomic<Int>(0)
    private let listening = Atomic<Bool>(false)
    private let uses = Atomic<UInt64>(0)

    /// `budget` entries of `bytesPerEntry` bytes in all (0 turns the cache off: every feed asks Redis).
    package init(store: PreviewStore, budget: Int, maxAgeMilliseconds: Int64 = 60_000) {
        self.store = store
        let count = budget > 0 ? 8 : 0
        shards = (0..<count).map { _ in Lock() }
        let (bytes, overflow) = budget.multipliedReportingOverflow(by: Self.bytesPerEntry)
        shardBudget = count > 0 ? max(1, (overflow ? Int.max : bytes) / count) : 0
        self.maxAgeMilliseconds = maxAgeMilliseconds
    }

    /// `subject`'s whole history, held or read now (and kept when it may be); nil while changes
    /// are not heard (or the cache is off), when only Redis can say.
    func history(subject: String, nowMilliseconds: Int64) throws -> Held? {
        guard let lock = shard(subject), listening.load(ordering: .acquiring) else { return nil }
        let use = uses.add(1, ordering: .relaxed).newValue
        let held = lock.shard.withLock { shard -> Held? in
            guard let index = shard.entries.index(forKey: subject),
                nowMilliseconds - shard.entries.values[index].loadedAtMilliseconds < maxAgeMilliseconds
            else { return nil }
            shard.entries.values[index].lastUse = use
            let entry = shard.entries.values[index]
            return Held(history: entry.history, seenEntries: entry.seenEntries, revision: entry.revision)
        }
        if let held { return held }
        return try load(subject, into: lock, nowMilliseconds: nowMilliseconds)
    }

    /// Keeps `seen`, made from `subject`'s history of `revision`, if that history is still held
    /// unchanged; it replaces the one of an earlier membership.
    func remember(_ seen: SeenEntries, subject: String, revision: UInt64) {
        shard(subject)?.shard.withLock { shard in
            guard let index = shard.entries.index(forKey: subject), shard.entries.values[index].revision == revision
            else { return }
            shard.size -= shard.entries.values[index].size
            shard.entries.values[index].seenEntries = seen
            shard.entries.values[index].size = Self.cost(
                subject: subject, history: shard.entries.values[index].history, seen: seen)
            shard.size += shard.entries.values[index].size
            if shard.size > shardBudget { Self.evict(&shard, downTo: shardBudget * 3 / 4) }
        }
    }

    private func load(_ subject: String, into lock: Lock, nowMilliseconds: Int64) throws -> Held {
        let startEpoch = epoch.load(ordering: .acquiring)
        let began = lock.shard.withLock { $0.beginLoad(subject) }
        let history: ViewerHistory
        do {
            history = try store.viewerHistory(subject: subject)
        } catch {
            lock.shard.withLock { _ = $0.endLoad(subject, began: began) }
            throw error
        }
        let size = Self.cost(subject: subject, history: history, seen: nil)
        let revision = lock.shard.withLock { shard -> UInt64? in
            let unchanged = shard.endLoad(subject, began: began)
            guard unchanged, epoch.load(ordering: .acquiring) == startEpoch, listening.load(ordering: .acquiring),
                size <= shardBudget / 2  // else it would crowd out the others
            else { return nil }
            shard.drop(subject)  // a concurrent load's result, as good as this one
            let use = uses.add(1, ordering: .relaxed).newValue
            let entry = Entry(
                history: history, loadedAtMilliseconds: nowMilliseconds, lastUse: use, seenEntries: nil, revision: use,
                size: size)
            shard.entries[subject] = entry
            shard.size += entry.size
            if shard.size > shardBudget { Self.evict(&shard, downTo: shardBudget * 3 / 4) }
            return shard.entries[subject] == nil ? nil : use
        }
        return Held(history: history, seenEntries: nil, revision: revision)
    }

    /// Drops the least recently used entries until `budget` holds what is left.
    private static func evict(_ shard: inout Shard, downTo budget: Int) {
        let byUse = shard.entries.sorted { $0.value.lastUse < $1.value.lastUse }
        for (subject, entry) in byUse where shard.size > budget {
            shard.entries[subject] = nil
            shard.size -= entry.size
        }
    }

    // MARK: Changes

    /// This process marked `streamId` at `version` seen by `subject` (Redis has it).
    func seen(subject: String, streamId: Int64, version: Int64) {
        patch(subject) { $0.seen[streamId] = version }
    }

    /// This process liked or unliked `streamId` for `subject` (Redis has it).
    func liked(subject: String, streamId: Int64, liked: Bool) {
        patch(subject) { history in
            if liked { history.liked.insert(streamId) } else { history.liked.remove(streamId) }
        }
    }

    /// `subject` changed in a way not worth patching (another process's change, a trim).
    func forget(subject: String) {
        shard(subject)?.shard.withLock { $0.remove(subject) }
    }

    /// The change subscription started (`true`: from now on changes are heard) or was lost
    /// (`false`); either way, whatever is held may have missed changes and goes.
    func listening(_ heard: Bool) {
        epoch.add(1, ordering: .acquiringAndReleasing)
        listening.store(heard, ordering: .releasing)
        for lock in shards {
            lock.shard.withLock { shard in
                shard.entries.removeAll()
                shard.size = 0
            }
        }
    }

    private func patch(_ subject: String, _ change: (inout ViewerHistory) -> Void) {
        shard(subject)?.shard.withLock { shard in
            shard.changed(subject)
            guard var entry = shard.entries[subject] else { return }
            shard.size -= entry.size
            change(&entry.history)
            entry.seenEntries = nil
            entry.revision = uses.add(1, ordering: .relaxed).newValue
            entry.size = Self.cost(subject: subject, history: entry.history, seen: nil)
            shard.size += entry.size
            shard.entries[subject] = entry
            if shard.size > shardBudget { Self.evict(&shard, downTo: shardBudget * 3 / 4) }
        }
    }

    /// Whether `subject`'s history is held (for tests).
    func holds(subject: String) -> Bool {
        shard(subject)?.shard.withLock { $0.entries[subject] != nil } ?? false
    }

    /// Whether a `SeenEntries` is kept with `subject`'s history (for tests).
    func holdsSeenEntries(subject: String) -> Bool {
        shard(subject)?.shard.withLock { $0.entries[subject]?.seenEntries != nil } ?? false
    }

    /// Whether changes are being heard, so histories are held.
    var isListening: Bool { listening.load(ordering: .acquiring) }

    /// The estimated bytes held in all.
    var heldBytes: Int { shards.reduce(0) { sum, lock in sum + lock.shard.withLock { $0.size } } }

    private func shard(_ subject: String) -> Lock? {
        guard !shards.isEmpty else { return nil }
        var hash: UInt64 = 14_695_981_039_346_656_037  // FNV-1a: stable, and cheap for short subjects
        for byte in subject.utf8 { hash = (hash ^ UInt64(byte)) &* 1_099_511_628_211 }
        return shards[Int(hash % UInt64(shards.count))]
    }
}

import Dispatch
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The shared feed snapshot as a second replica sees it: changes it did not make arrive by reload.
@Suite struct FeedSnapshotCacheTests {
    let harness: AppHarness
    /// Another replica's cache over the same Redis: the harness's writes do not patch it.
    let replica: FeedSnapshotCache

    init() throws {
        harness = try AppHarness()
        replica = AppContext.feedCache(
            store: harness.context.store, storage: harness.local, crypto: OpenSSLCrypto(), maxAgeMilliseconds: 1000,
            grid: ExpiryGrid())
    }

    private func liveIds(_ snapshot: FeedSnapshot, at milliseconds: Int64) -> [Int64] {
        snapshot.playOrder(now: milliseconds / 1000, limit: 100, current: nil) {
            Array(repeating: ViewerFlags(), count: $0.count)
        }.map(\.streamId)
    }

    @Test func anotherReplicasCommitShowsAfterTheCacheAgeWhileTheOldSnapshotAnswersMeanwhile() throws {
        _ = try harness.publish(stream: 1)
        let start = harness.clock.milliseconds
        #expect(liveIds(try replica.snapshot(nowMilliseconds: start), at: start) == [1])
        _ = try harness.publish(stream: 2)
        #expect(liveIds(try replica.snapshot(nowMilliseconds: start + 500), at: start) == [1])
        // Past the age: answered at once from the old snapshot, reloaded off the request path.
        #expect(liveIds(try replica.snapshot(nowMilliseconds: start + 1_000), at: start) == [1])
        let reloaded = eventually {
            (try? replica.snapshot(nowMilliseconds: start + 1_001)).map { liveIds($0, at: start).count } == 2
        }
        #expect(reloaded)
    }

    @Test func aSnapshotFarPastItsAgeIsNotServedWhenRedisCannotReloadIt() throws {
        _ = try harness.publish(stream: 1)
        let start = harness.clock.milliseconds
        #expect(liveIds(try replica.snapshot(nowMilliseconds: start), at: start) == [1])
        harness.redis.stop()
        // A little stale: still answered (the background reload fails and is logged).
        #expect(liveIds(try replica.snapshot(nowMilliseconds: start + 2_000), at: start) == [1])
        // Ten ages on, the request reloads itself and fails with Redis.
        #expect(throws: (any Error).self) { try replica.snapshot(nowMilliseconds: start + 10_000) }
    }

    @Test func likeCountsAreNumberedPerVersionAndTheNewestWinsWhateverOrderTheyArriveIn() throws {
        let first = try harness.publish(stream: 1)
        let store = harness.context.store
        let now = harness.now
        let ann = try #require(try store.setLike(streamId: 1, subject: "ann", like: true, now: now, ttl: 60)).count
        let bob = try #require(try store.setLike(streamId: 1, subject: "bob", like: true, now: now, ttl: 60)).count
        let again = try #require(try store.setLike(streamId: 1, subject: "bob", like: true, now: now, ttl: 60)).count
        #expect(ann == LikeCount(likes: 1, version: first.previewVersion, sequence: 1))
        #expect(bob == LikeCount(likes: 2, version: first.previewVersion, sequence: 2))
        #expect(again == bob, "a repeated like changes nothing, so it is not a new count")

        let start = harness.clock.milliseconds
        _ = try replica.snapshot(nowMilliseconds: start)
        replica.liked(streamId: 1, count: bob)
        replica.liked(streamId: 1, count: ann)  // answered first, applied last
        #expect(try replica.snapshot(nowMilliseconds: start).likes(streamId: 1) == 2)

        // A new clip numbers its like changes afresh; a count of the old clip no longer applies.
        let second = try harness.publish(stream: 1)
        let loaded = try #require(try store.liveStream(streamId: 1))
        #expect(loaded.preview.version == second.previewVersion && loaded.likeSequence == 0 && loaded.likes == 2)
        let unliked = try #require(try store.setLike(streamId: 1, subject: "ann", like: false, now: now, ttl: 60)).count
        #expect(unliked == LikeCount(likes: 1, version: second.previewVersion, sequence: 1))
    }

    @Test func requestsWithNothingToServeWaitForOneLoadInsteadOfEachReadingTheLiveList() throws {
        for stream in 1...20 { _ = try harness.publish(stream: Int64(stream)) }
        let admin = try harness.redis.connection()
        _ = try admin.command(["CONFIG", "RESETSTAT"])
        let start = harness.clock.milliseconds
        let loaded = Mutex(0)
        let replica = self.replica
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if let snapshot = try? replica.snapshot(nowMilliseconds: start), snapshot.count == 20 {
                loaded.withLock { $0 += 1 }
            }
        }
        #expect(loaded.withLock { $0 } == 16)
        let stats = try #require(admin.command(["INFO", "commandstats"]).string)
        let reads = stats.split(separator: "\r\n").first { $0.hasPrefix("cmdstat_zrangebyscore:") }
        #expect(
            reads?.hasPrefix("cmdstat_zrangebyscore:calls=1,") == true, "one read of the live list: \(reads ?? "none")")
    }

    @Test func aChangeHeardDuringAReloadKeepsTheLastGoodSnapshotAnswering() throws {
        _ = try harness.publish(stream: 1)
        let gate = RenderGate(blocking: 2)
        let storage = harness.local
        let crypto = OpenSSLCrypto()
        let cache = FeedSnapshotCache(
            store: harness.context.store, maxAgeMilliseconds: 1000, grid: ExpiryGrid()
        ) { stream, now in
            try gate.pass(stream.preview.streamId)
            return FeedItemTemplate(
                try AppContext.feedItem(stream, seen: false, liked: false, storage: storage, now: now), crypto: crypto)
        }
        let start = harness.clock.milliseconds
        #expect(liveIds(try cache.snapshot(nowMilliseconds: start), at: start) == [1])
        _ = try harness.publish(stream: 2)
        cache.expire()
        // Answered from the old snapshot; the reload runs in the background and stops at stream 2.
        #expect(liveIds(try cache.snapshot(nowMilliseconds: start + 1), at: start) == [1])
        #expect(gate.waitUntilBlocked(), "the background reload reached stream 2")
        cache.expire()  // a change heard while that reload runs: its result may predate it
        gate.openAndFailFromNowOn()
        #expect(eventually { !cache.isLoading })
        // Any load from here fails, so only the snapshot kept across the discarded reload can answer.
        #expect(liveIds(try cache.snapshot(nowMilliseconds: start + 2), at: start) == [1])
    }
}

/// Holds the render of one stream until opened, then fails every render: a reload that can be
/// caught in the middle, and a load that cannot succeed afterwards.
private final class RenderGate: Sendable {
    private struct State {
        var blocked = false
        var failing = false
    }
    private struct RenderRefused: Error {}

    private let streamId: Int64
    private let state = Mutex(State())
    private let release = DispatchSemaphore(value: 0)

    init(blocking streamId: Int64) { self.streamId = streamId }

    func pass(_ id: Int64) throws {
        let (block, failing) = state.withLock { state -> (Bool, Bool) in
            let block = id == streamId && !state.blocked && !state.failing
            if block { state.blocked = true }
            return (block, state.failing)
        }
        if failing { throw RenderRefused() }
        if block { release.wait() }
    }

    func waitUntilBlocked() -> Bool { eventually { state.withLock { $0.blocked } } }

    func openAndFailFromNowOn() {
        state.withLock { $0.failing = true }
        release.signal()
    }
}

import Dispatch
import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The shared snapshot across a URL window's turn, with a window of 10 s: a publish heard just
/// after the turn, and a burst of requests at it, cost one read of the live list per turn, and
/// the cache holds a snapshot throughout.
@Suite struct FeedSnapshotGridTurnTests {
    let harness: AppHarness
    let grid = ExpiryGrid(lifetime: 20, window: 10)

    init() throws {
        harness = try AppHarness()
    }

    private func cache(render gate: HeldRender? = nil) -> FeedSnapshotCache {
        let storage = harness.local
        let crypto = OpenSSLCrypto()
        return FeedSnapshotCache(store: harness.context.store, maxAgeMilliseconds: 1000, grid: grid) { stream, now in
            try gate?.pass(stream.preview.streamId)
            return FeedItemTemplate(
                try AppContext.feedItem(stream, seen: false, liked: false, storage: storage, now: now), crypto: crypto)
        }
    }

    /// 16 requests at once; every one must get a snapshot.
    private func burst(_ cache: FeedSnapshotCache, at milliseconds: Int64) -> [FeedSnapshot] {
        let answers = Mutex<[FeedSnapshot]>([])
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            if let snapshot = try? cache.snapshot(nowMilliseconds: milliseconds) {
                answers.withLock { $0.append(snapshot) }
            }
        }
        return answers.withLock { $0 }
    }

    /// The first millisecond of the window after the one holding `milliseconds`.
    private func nextTurn(after milliseconds: Int64) -> Int64 {
        (grid.signingTime(at: milliseconds / 1000) + grid.window) * 1000
    }

    @Test func aPublishHeardJustAfterATurnAndABurstOfRequestsCostOneReadPerTurn() throws {
        for stream in 1...5 { _ = try harness.publish(stream: Int64(stream)) }
        let cache = cache()
        var turn = nextTurn(after: harness.clock.milliseconds)
        #expect(try cache.snapshot(nowMilliseconds: turn - 300).count == 5)
        #expect(cache.liveListReads == 1)
        for (round, stream) in [Int64(6), 7, 8].enumerated() {
            // Published just after the turn, heard before any request of the new window.
            _ = try harness.publish(stream: stream)
            let live = try #require(try harness.context.store.liveStream(streamId: stream))
            cache.published(live, nowMilliseconds: turn + 1)
            let held = try #require(cache.held, "a good snapshot is never replaced by nothing")
            #expect(held.entry(streamId: stream) != nil, "the publish is held, rendered for the held window")

            let answers = burst(cache, at: turn + 2)
            #expect(answers.count == 16)
            #expect(answers.allSatisfy { $0.entry(streamId: stream) != nil })
            #expect(eventually { !cache.isLoading })
            #expect(cache.liveListReads == 2 * round + 2, "one read of the live list per turn")
            let renewed = try #require(cache.held)
            #expect(renewed.signingTime == turn / 1000)
            #expect(renewed.count == Int(stream))
            turn += grid.window * 1000
            // The next turn comes after the snapshot's age: read again just before it.
            _ = try cache.snapshot(nowMilliseconds: turn - 300)
            #expect(eventually { !cache.isLoading })
            #expect(cache.liveListReads == 2 * round + 3)
            #expect(try cache.snapshot(nowMilliseconds: turn - 299).loadedAtMilliseconds == turn - 300)
        }
    }

    @Test func aPublishOfTheNextWindowHeardDuringAReloadIsKeptWithTheReload() throws {
        for stream in 1...3 { _ = try harness.publish(stream: Int64(stream)) }
        let gate = HeldRender(blocking: 4)
        let cache = cache(render: gate)
        let turn = nextTurn(after: harness.clock.milliseconds)
        #expect(try cache.snapshot(nowMilliseconds: turn - 3_000).count == 3)
        _ = try harness.publish(stream: 4)
        // Past the age, just before the turn: answered from the old snapshot, reloaded off the
        // request path for the old window; the reload stops at stream 4.
        #expect(try cache.snapshot(nowMilliseconds: turn - 1_000).count == 3)
        #expect(gate.waitUntilBlocked())
        _ = try harness.publish(stream: 5)
        let live = try #require(try harness.context.store.liveStream(streamId: 5))
        cache.published(live, nowMilliseconds: turn + 1)
        #expect(try #require(cache.held).entry(streamId: 5) != nil)
        gate.open()
        #expect(eventually { !cache.isLoading })
        let kept = try #require(cache.held)
        #expect(kept.count == 5, "the reload is kept, with the publish it could not read")
        #expect(cache.liveListReads == 2)
        // The next window's first requests are answered from it, with one reload for all.
        #expect(burst(cache, at: turn + 2).allSatisfy { $0.count == 5 })
        #expect(eventually { !cache.isLoading })
        #expect(cache.liveListReads == 3)
        #expect(try #require(cache.held).signingTime == turn / 1000)
    }

    @Test func requestsWaitingOnADiscardedLoadGetItsResultInsteadOfEachReadingTheList() throws {
        for stream in 1...3 { _ = try harness.publish(stream: Int64(stream)) }
        let gate = HeldRender(blocking: 2)
        let cache = cache(render: gate)
        let now = harness.clock.milliseconds
        let answers = Mutex<[FeedSnapshot]>([])
        let requests = DispatchGroup()
        for _ in 0..<16 {
            requests.enter()
            Thread.detachNewThread {
                if let snapshot = try? cache.snapshot(nowMilliseconds: now) { answers.withLock { $0.append(snapshot) } }
                requests.leave()
            }
        }
        #expect(gate.waitUntilBlocked())
        #expect(eventually(within: 60) { cache.requestsWaiting == 15 }, "one request loads, the others wait for it")
        // A change no patch can carry, heard while the only load runs: its result may lack it.
        cache.expire()
        gate.open()
        #expect(requests.wait(timeout: .now() + 60) == .success)
        #expect(answers.withLock { $0.count } == 16)
        #expect(cache.liveListReads == 1)
        #expect(cache.held?.count == 3, "with nothing better held, the result is kept (and reloaded at the next read)")
    }
}

/// Holds the render of one stream until opened: a load that can be caught in the middle.
final class HeldRender: Sendable {
    private let streamId: Int64
    private let blocked = Mutex(false)
    private let release = DispatchSemaphore(value: 0)

    init(blocking streamId: Int64) { self.streamId = streamId }

    func pass(_ id: Int64) throws {
        let block = blocked.withLock { blocked -> Bool in
            guard id == streamId, !blocked else { return false }
            blocked = true
            return true
        }
        if block { release.wait() }
    }

    func waitUntilBlocked() -> Bool { eventually { blocked.withLock { $0 } } }

    func open() { release.signal() }
}

import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The viewer histories a process holds, against a real Redis: what another process changes
/// reaches them over pub/sub, and nothing is held that could have missed a change.
@Suite("Viewer histories held per process")
struct ViewerHistoryCacheTests {
    /// A harness that holds histories, once its listener is subscribed.
    static func listeningHarness(
        budget: Int = 100_000, failpoints: PreviewStore.Failpoints = PreviewStore.Failpoints()
    ) throws -> AppHarness {
        let harness = try AppHarness(failpoints: failpoints, viewerCacheEntries: budget)
        let cache = try #require(harness.context.viewerCache)
        try #require(eventually { cache.isListening }, "the listener subscribes")
        return harness
    }

    /// Another replica on the same Redis: its writes announce themselves like this process's.
    static func otherProcess(_ harness: AppHarness) -> PreviewStore {
        PreviewStore(pool: harness.redis.pool(), keys: harness.context.store.keys)
    }

    @Test func anotherProcessesSeenMarkAndLikeReachAHeldHistory() throws {
        let harness = try Self.listeningHarness()
        let cache = try #require(harness.context.viewerCache)
        let first = try harness.publish(stream: 1)
        _ = try harness.publish(stream: 2)
        let ann = harness.token("ann", .viewer)
        #expect(try harness.feed(token: ann).map(\.seen) == [false, false])
        #expect(cache.holds(subject: "ann"))

        let other = Self.otherProcess(harness)
        _ = try other.markSeen(streamId: 1, subject: "ann", now: harness.now, ttl: 3600)
        _ = try other.setLike(streamId: 2, subject: "ann", like: true, now: harness.now, ttl: 3600)
        var lastFeed: Result<[FeedItem], any Error> = .success([])
        let heard = eventually {
            lastFeed = Result { try harness.feed(token: ann) }
            let items = (try? lastFeed.get()) ?? []
            return items.first { $0.streamId == 1 }?.seen == true && items.first { $0.streamId == 2 }?.liked == true
        }
        #expect(heard, "the other process's changes show in this process's feed; last read: \(lastFeed)")
        #expect(first.previewVersion == 1)
    }

    @Test func aChangeNobodyAnnouncedShowsOnlyOnceTheHeldHistoryIsAMinuteOld() throws {
        let harness = try Self.listeningHarness()
        _ = try harness.publish(stream: 1)
        let ann = harness.token("ann", .viewer)
        #expect(try harness.feed(token: ann).first?.seen == false)
        // Written past the service (as a key Redis expired would vanish): the held history answers.
        _ = try harness.redis.connection().command(["HSET", harness.context.store.keys.seen("ann"), "1", "1"])
        #expect(try harness.feed(token: ann).first?.seen == false)
        harness.advance(seconds: 61)
        #expect(try harness.feed(token: ann).first?.seen == true)
    }

    @Test func thisProcesssOwnMarksShowAtOnce() throws {
        let harness = try Self.listeningHarness()
        _ = try harness.publish(stream: 1)
        _ = try harness.publish(stream: 2)
        let ann = harness.token("ann", .viewer)
        _ = try harness.feed(token: ann)
        #expect(harness.send("POST", "/api/streams/1/seen", token: ann).status == 204)
        #expect(harness.send("POST", "/api/streams/2/like", token: ann).status == 200)
        let items = try harness.feed(token: ann)
        #expect(items.first { $0.streamId == 1 }?.seen == true)
        #expect(items.first { $0.streamId == 2 }?.liked == true)
        #expect(harness.send("DELETE", "/api/streams/2/like", token: ann).status == 200)
        #expect(try harness.feed(token: ann).first { $0.streamId == 2 }?.liked == false)
    }

    @Test func whatAViewerOfManyStreamsHasSeenIsKeptAcrossFeedsUntilTheirHistoryOrTheLiveListChanges() throws {
        let harness = try Self.listeningHarness()
        let cache = try #require(harness.context.viewerCache)
        let count = Int64(FeedHandler.seenEntriesFrom + 6)
        for stream in 1...count { _ = try harness.publish(stream: stream) }
        let ann = harness.token("ann", .viewer)
        for stream in 1..<count {
            #expect(harness.send("POST", "/api/streams/\(stream)/seen", token: ann).status == 204)
        }
        let first = try harness.feed(token: ann, query: "limit=3")
        #expect(first.map(\.seen) == [false, true, true])
        #expect(first.first?.streamId == count)
        #expect(cache.holdsSeenEntries(subject: "ann"))
        #expect(try harness.feed(token: ann, query: "limit=3") == first, "the kept bits answer the same")

        #expect(harness.send("POST", "/api/streams/\(count)/seen", token: ann).status == 204)
        #expect(!cache.holdsSeenEntries(subject: "ann"), "an own mark drops them")
        #expect(try harness.feed(token: ann, query: "limit=3").allSatisfy { $0.seen })
        #expect(cache.holdsSeenEntries(subject: "ann"))

        _ = try harness.publish(stream: 5)  // a new clip: unseen again, and first
        let afterClip = try harness.feed(token: ann, query: "limit=3")
        #expect(afterClip.first?.streamId == 5 && afterClip.first?.seen == false)
        #expect(afterClip.dropFirst().allSatisfy { $0.seen })
    }

    @Test func nothingIsHeldWhileTheSubscriptionIsDownAndAllIsReadAgainAfterIt() throws {
        let harness = try Self.listeningHarness()
        let cache = try #require(harness.context.viewerCache)
        _ = try harness.publish(stream: 1)
        let ann = harness.token("ann", .viewer)
        _ = try harness.feed(token: ann)
        #expect(cache.holds(subject: "ann"))

        _ = try harness.redis.connection().command(["CLIENT", "KILL", "TYPE", "pubsub"])
        #expect(eventually { !cache.isListening || cache.heldBytes == 0 }, "the lost subscription drops all")
        #expect(!cache.holds(subject: "ann"))
        #expect(eventually { cache.isListening }, "the listener subscribes again")
        _ = try harness.redis.connection().command(["HSET", harness.context.store.keys.seen("ann"), "1", "1"])
        #expect(try harness.feed(token: ann).first?.seen == true, "read afresh after the new subscription")
        #expect(cache.holds(subject: "ann"))
    }

    @Test func aHistoryAChangeOvertookWhileItWasReadIsUsedOnceAndNotKept() throws {
        let reads = Atomic(0)
        let forgetDuringRead = Mutex<(@Sendable () -> Void)?>(nil)
        let failpoints = PreviewStore.Failpoints(afterViewerHistoryRead: {
            reads.add(1, ordering: .relaxed)
            forgetDuringRead.withLock { $0 }?()
        })
        let harness = try Self.listeningHarness(failpoints: failpoints)
        let cache = try #require(harness.context.viewerCache)
        _ = try harness.publish(stream: 1)
        forgetDuringRead.withLock { $0 = { cache.forget(subject: "ann") } }  // a change heard mid-read
        let ann = harness.token("ann", .viewer)
        _ = try harness.feed(token: ann)
        #expect(!cache.holds(subject: "ann"))
        forgetDuringRead.withLock { $0 = nil }
        _ = try harness.feed(token: ann)
        _ = try harness.feed(token: ann)
        #expect(reads.load(ordering: .relaxed) == 2, "read again once, then held")
        #expect(cache.holds(subject: "ann"))
    }

    @Test func theBudgetBoundsWhatIsHeldLeastRecentlyUsedFirstAndAHugeHistoryIsNotHeld() throws {
        // 290 entries of 32 bytes: 8 shards of 1,160 bytes, each room for 5 viewers who saw
        // nothing (about 204 bytes each); a history over 580 bytes (12 streams seen) is not held.
        let budget = 290
        let harness = try Self.listeningHarness(budget: budget)
        let cache = try #require(harness.context.viewerCache)
        let streams = (1...12).map { Int64($0) }
        for stream in streams { _ = try harness.publish(stream: stream) }
        let other = Self.otherProcess(harness)
        for stream in streams {
            _ = try other.markSeen(streamId: stream, subject: "heavy", now: harness.now, ttl: 3600)
        }
        #expect(try harness.feed(token: harness.token("heavy", .viewer)).allSatisfy { $0.seen })
        #expect(!cache.holds(subject: "heavy"))

        for viewer in 0..<300 {
            _ = try harness.feed(token: harness.token("v\(viewer)", .viewer))
            #expect(cache.heldBytes <= budget * ViewerHistoryCache.bytesPerEntry)
            #expect(cache.holds(subject: "v\(viewer)"), "the viewer just served is held")
        }
        let held = (0..<300).filter { cache.holds(subject: "v\($0)") }
        #expect(held.count >= 16 && held.count <= 45)
        #expect(held.contains(299))
        #expect(!held.contains(0), "the least recently used went first")
    }

    @Test func aViewersSubjectCountsAgainstTheBudget() throws {
        // 8 shards of 4,000 bytes: about 19 viewers with short subjects each, 8 with 255-byte ones.
        let budget = 1000
        let harness = try Self.listeningHarness(budget: budget)
        let cache = try #require(harness.context.viewerCache)
        _ = try harness.publish(stream: 1)
        let subjects = (0..<120).map { "\($0 + 100)" + String(repeating: "s", count: 252) }
        for subject in subjects {
            _ = try harness.feed(token: harness.token(subject, .viewer))
            #expect(cache.heldBytes <= budget * ViewerHistoryCache.bytesPerEntry)
        }
        let held = subjects.filter { cache.holds(subject: $0) }
        #expect(held.count <= budget * ViewerHistoryCache.bytesPerEntry / (200 + 255))
        #expect(held.count >= 8)
    }
}

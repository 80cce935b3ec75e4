import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The change subscription over quiet periods, against a real Redis.
@Suite struct FeedChangeListenerTests {
    @Test func aQuietButHealthySubscriptionIsPingedAndKeepsTheHeldViewerHistories() throws {
        let harness = try AppHarness(viewerCacheEntries: 100_000, listenerIdleSeconds: 0.2)
        let cache = try #require(harness.context.viewerCache)
        let listener = try #require(harness.listener)
        try #require(eventually { cache.isListening }, "the listener subscribes")
        _ = try harness.publish(stream: 1)
        let ann = harness.token("ann", .viewer)
        _ = try harness.feed(token: ann)
        #expect(cache.holds(subject: "ann"))

        // Several idle periods pass with nothing published: each is answered by a ping.
        #expect(eventually { listener.activity.pings >= 5 }, "the quiet channel is pinged")
        #expect(listener.activity.subscriptions == 1, "the healthy subscription was never given up")
        #expect(cache.holds(subject: "ann"), "what is held stays across quiet periods")

        // A change from another process still arrives on the same subscription.
        _ = try ViewerHistoryCacheTests.otherProcess(harness).markSeen(
            streamId: 1, subject: "ann", now: harness.now, ttl: 3600)
        #expect(eventually { (try? harness.feed(token: ann).first?.seen) == true })
    }

    @Test func aSubscriptionThatStopsAnsweringIsGivenUpAndMadeAgain() throws {
        let harness = try AppHarness(viewerCacheEntries: 100_000, listenerIdleSeconds: 0.2)
        let cache = try #require(harness.context.viewerCache)
        let listener = try #require(harness.listener)
        try #require(eventually { cache.isListening }, "the listener subscribes")
        _ = try harness.feed(token: harness.token("ann", .viewer))
        #expect(cache.holds(subject: "ann"))

        // A server that stops answering (paused for longer than a ping's wait): the ping gets
        // no answer, so the subscription is given up, nothing is held, and it is made again.
        _ = try harness.redis.connection().command(["CLIENT", "PAUSE", "1500", "ALL"])
        #expect(eventually { !cache.holds(subject: "ann") }, "an unanswered ping drops what is held")
        #expect(eventually { listener.activity.subscriptions >= 2 && cache.isListening }, "subscribed again")
    }
}

import Foundation
import PreviewCore
package import PreviewRedis
import Synchronization

/// Applies the feed changes other processes announce (`FeedChange` on
/// `RedisKeys.feedChanges`) to this process's snapshot, so a like, commit or end of stream
/// made through another replica shows here within milliseconds rather than at the next
/// reload; and the viewer changes (`RedisKeys.viewerChanges`) to the viewer histories held
/// here, which are held only while this subscription stands. A quiet channel is checked with a
/// `PING` on the same connection (answered in subscribed mode), so a healthy subscription is
/// never given up and what is held stays; only a lost one costs something: the snapshot's own
/// one-second expiry still bounds how stale it can be, and after re-subscribing the snapshot is
/// reloaded and the viewer histories start afresh, since messages may have been missed
/// meanwhile. On a cluster, classic pub/sub reaches every node, so the subscription may be on
/// any of them (`RedisClient.dedicatedConnection`).
package final class FeedChangeListener: Sendable {
    private let store: PreviewStore
    private let cache: FeedSnapshotCache
    private let viewers: ViewerHistoryCache?
    /// Told when the event log has new entries (any process's), and after each (re)subscription.
    private let events: FeedEvents?
    package let nowMilliseconds: @Sendable () -> Int64
    /// After this long without a message the channel is pinged; after twice this long without
    /// one the connection is taken for dead and the channels are subscribed again.
    private let idleSeconds: Double
    private let stopped = Mutex(false)
    private let counts = Mutex(Counts())

    /// What the listener has done, for tests and logs.
    struct Counts: Equatable {
        var subscriptions = 0
        var pings = 0
    }

    package init(
        store: PreviewStore, cache: FeedSnapshotCache, viewers: ViewerHistoryCache?, events: FeedEvents? = nil,
        idleSeconds: Double = 30, nowMilliseconds: @escaping @Sendable () -> Int64
    ) {
        self.store = store
        self.cache = cache
        self.viewers = viewers
        self.events = events
        self.idleSeconds = idleSeconds
        self.nowMilliseconds = nowMilliseconds
    }

    package func start() {
        let thread = Thread { [self] in run() }
        thread.name = "feed-changes"
        thread.start()
    }

    /// Stops after the current wait (at most `idleSeconds`); the thread holds no resource the
    /// process needs to release first.
    package func stop() { stopped.withLock { $0 = true } }

    var activity: Counts { counts.withLock { $0 } }

    package func run() {
        var failures = 0
        while !stopped.withLock({ $0 }) {
            do {
                // The pool's server (with Sentinel, the current primary, found again after a failover),
                // or a node of the cluster.
                let connection = try store.pool.dedicatedConnection(commandTimeout: idleSeconds)
                // One command: both channels are heard from its first reply on.
                _ = try connection.command(["SUBSCRIBE", store.keys.feedChanges, store.keys.viewerChanges])
                if failures > 0 { Log.info("feed_changes_resubscribed", [:]) }
                failures = 0
                counts.withLock { $0.subscriptions += 1 }
                cache.expire()
                events?.poke()
                viewers?.listening(true)
                try listen(on: connection)
                viewers?.listening(false)
            } catch {
                viewers?.listening(false)
                failures += 1
                if failures == 1 { Log.warn("feed_changes_lost", ["error": "\(error)"]) }
                usleep(UInt32(min(failures, 10)) * 200_000)
            }
        }
    }

    /// Applies messages until stopped; throws when the connection fails or stays silent after a ping.
    private func listen(on connection: RedisConnection) throws {
        var pinged = false
        while !stopped.withLock({ $0 }) {
            if let push = try connection.receive(within: idleSeconds) {
                pinged = false  // any reply, the pong included, shows the connection alive
                apply(push)
                continue
            }
            guard !pinged else {
                throw RedisError(kind: .timeout, message: "no answer to PING on the change subscription")
            }
            try connection.send(["PING"])
            pinged = true
            counts.withLock { $0.pings += 1 }
        }
    }

    /// A `message` push: ["message", channel, text].
    private func apply(_ push: RedisValue) {
        guard let parts = push.array, parts.count == 3, parts[0].string == "message", let text = parts[2].string
        else { return }
        if parts[1].string == store.keys.viewerChanges {
            // `<origin> <subject>`; the subject may hold spaces.
            guard let space = text.firstIndex(of: " "), text[..<space] != store.origin else { return }
            viewers?.forget(subject: String(text[text.index(after: space)...]))
            return
        }
        if FeedChange.isEventsMessage(text) {
            events?.poke()  // this process's own entries too: one thread sends every event
            return
        }
        guard let change = FeedChange(message: text), change.origin != store.origin else { return }
        switch change.kind {
        case .liked:
            cache.liked(streamId: change.streamId, count: change.likeCount)
        case .removed:
            cache.removed(streamId: change.streamId, version: change.value)
        case .published:
            do {
                if let stream = try store.liveStream(streamId: change.streamId) {
                    cache.published(stream, nowMilliseconds: nowMilliseconds())
                }
            } catch {
                cache.expire()  // the next read reloads instead
            }
        }
    }
}

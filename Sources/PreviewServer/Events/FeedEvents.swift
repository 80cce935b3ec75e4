import Foundation
import PreviewCore
import PreviewRedis
import Synchronization

/// `GET /api/feed/events` of this process: the event streams it holds, and one thread that
/// follows the event log (`PreviewStore.events(after:limit:)`) and sends each new entry to all
/// of them, rendered once. The thread reads the log when the change channel announces new
/// entries (`FeedChangeListener` calls `poke()`, for this process's changes and every other
/// replica's) and at least every `pollSeconds` in case an announcement was lost; at each of those
/// wake-ups it also sends a heartbeat to the streams that have had nothing for about
/// `heartbeatSeconds` (`EventStreamConnection.heartbeatIfQuiet`), each on a phase of its own, so
/// ten thousand streams are not all woken in the same instant. A stream resumed with `Last-Event-ID` is replayed from the log first, or
/// told to `reset` when the log no longer holds what it missed.
package final class FeedEvents: Sendable {
    package struct Settings: Sendable {
        /// Seconds a stream goes without bytes before it is sent a heartbeat comment, which keeps
        /// proxies from closing it (between half this and this, drawn per stream).
        package var heartbeatSeconds = 15.0
        /// Bytes one stream may have waiting before its client is taken as not reading and dropped.
        var maxPendingBytes = 64 * 1024
        /// The most events replayed to one resuming client; more and it is told to reset.
        var replayLimit = 1000
        /// The most bytes of one replay (a thousand `preview` events fit); more and it is told to reset.
        var maxReplayBytes = 1 << 20
        /// The most bytes of replays queued on all streams and not read yet: past it a resuming
        /// client is told to reset (one feed reload) rather than held in memory.
        var replayBudgetBytes = 64 << 20
        /// The `retry:` a client waits before reconnecting, in milliseconds.
        var retryMilliseconds = 3000
        /// The longest the log goes unread when no announcement comes.
        var pollSeconds = 1.0

        package init() {}
    }

    /// Renders the data of `preview` events: each stream's feed item as an anonymous viewer gets
    /// it, for the streams still live (a stream left out has ended: its `removed` event follows in
    /// the log). An item is never of an older preview than the `version` its event names.
    typealias RenderPreviews = @Sendable (_ wanted: [(streamId: Int64, version: Int64)]) throws -> [Int64: [UInt8]]

    private let store: PreviewStore
    private let settings: Settings
    private let renderPreviews: RenderPreviews
    private let streams = Mutex<[ObjectIdentifier: EventStreamConnection]>([:])
    private let wakeup = NSCondition()
    private let replayBudget: ReplayBudget
    private let state = Mutex(TailState())

    private struct TailState {
        var stopped = false
        var poked = false
        /// The newest like count sent per stream: a count the log holds out of order is not sent.
        var likes: [Int64: LikeCount] = [:]
        var sent = 0
    }

    init(store: PreviewStore, settings: Settings = Settings(), renderPreviews: @escaping RenderPreviews) {
        self.store = store
        self.settings = settings
        self.renderPreviews = renderPreviews
        replayBudget = ReplayBudget(limit: settings.replayBudgetBytes)
    }

    /// The event streams of a server: a `preview` event carries the stream's feed item as the
    /// feed renders it for an anonymous viewer. Items come from the shared feed snapshot, already
    /// rendered; only the streams it lacks (or holds an older preview of) are read from Redis, in
    /// one pipelined round trip, so a replay of a thousand events costs the thread that serves
    /// it memory copies and at most one read.
    package static func serving(_ context: AppContext, settings: Settings) -> FeedEvents {
        FeedEvents(store: context.store, settings: settings) { [context] wanted in
            try anonymousItems(wanted, context: context)
        }
    }

    private static func anonymousItems(_ wanted: [(streamId: Int64, version: Int64)], context: AppContext) throws
        -> [Int64: [UInt8]]
    {
        guard !wanted.isEmpty else { return [:] }
        let nowMilliseconds = context.nowMilliseconds()
        let now = nowMilliseconds / 1000
        let snapshot = try context.feedCache.snapshot(nowMilliseconds: nowMilliseconds)
        var items: [Int64: [UInt8]] = [:]
        var lacking: [Int64] = []
        for (streamId, version) in wanted where items[streamId] == nil {
            guard let entry = snapshot.entry(streamId: streamId), entry.preview.version >= version else {
                lacking.append(streamId)
                continue
            }
            guard entry.preview.expiresAt > now else { continue }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(entry.template.estimatedSize)
            entry.template.appendJSON(
                to: &bytes, likes: snapshot.likes(streamId: streamId) ?? 0, liked: false, seen: false)
            items[streamId] = bytes
        }
        for stream in try context.store.liveStreams(streamIds: Array(Set(lacking)))
        where stream.preview.expiresAt > now {
            items[stream.preview.streamId] = try context.feedItem(stream, seen: false, liked: false, now: now)
                .jsonBytes()
        }
        return items
    }

    /// The streams and versions the `preview` events among `entries` name.
    private static func previewsNamed(in entries: [(id: FeedEventID, event: FeedEvent?)])
        -> [(streamId: Int64, version: Int64)]
    {
        entries.compactMap { entry in
            guard case .preview(let streamId, let version)? = entry.event else { return nil }
            return (streamId, version)
        }
    }

    /// Event streams open now.
    var openStreams: Int { streams.withLock { $0.count } }
    /// Events sent to streams since start (one per event, however many streams got it).
    var eventsSent: Int { state.withLock { $0.sent } }

    func render(into text: inout PrometheusText, store: PreviewStore) {
        text.family(
            "streampreview_event_streams_open", .gauge, help: "GET /api/feed/events streams open on this process.")
        text.sample("streampreview_event_streams_open", Int64(openStreams))
        text.family(
            "streampreview_feed_events_sent_total", .counter,
            help: "Events of the event log this process sent to its open streams (once each, however many streams).")
        text.sample("streampreview_feed_events_sent_total", Int64(eventsSent))
        text.family(
            "streampreview_feed_event_log_failures_total", .counter,
            help:
                "Changes made here whose event could not be written to the event log (viewers see them at their next reload)."
        )
        text.sample("streampreview_feed_event_log_failures_total", Int64(store.eventLogFailures))
    }

    // MARK: Streams

    /// A new event stream for a client that last saw `lastEventID` (nil: a new client, which
    /// gets events from now on). Throws when the log cannot be read for its replay.
    func open(lastEventID: FeedEventID?) throws -> EventStreamConnection {
        let connection = EventStreamConnection(maxPendingBytes: settings.maxPendingBytes, replayBudget: replayBudget) {
            [weak self] closed in
            _ = self?.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(closed)) }
        }
        connection.send(ServerSentEvents.opening(retryMilliseconds: settings.retryMilliseconds))
        guard let lastEventID else {
            streams.withLock { $0[ObjectIdentifier(connection)] = connection }
            return connection
        }
        // Subscribed before the log is read: what arrives meanwhile is held, then sent if newer.
        connection.beginReplay(after: lastEventID)
        streams.withLock { $0[ObjectIdentifier(connection)] = connection }
        do {
            let replay = try replay(after: lastEventID)
            let bytes = replay.events.reduce(0) { $0 + $1.1.count }
            if replay.reset {
                connection.endReplay(replay.events, reset: true)
            } else if bytes <= settings.maxReplayBytes, replayBudget.reserve(bytes) {
                connection.endReplay(replay.events, reserved: bytes)
            } else {
                // Too much to hold now: one feed reload costs the client less than waiting for it.
                connection.endReplay([(replay.newest, ServerSentEvents.reset(id: replay.newest))], reset: true)
            }
        } catch {
            _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
            throw error
        }
        return connection
    }

    /// The events after `lastEventID`, rendered, and the newest ID read; a lone `reset` when the
    /// log lost some of them or they are more than `replayLimit`.
    private func replay(after lastEventID: FeedEventID) throws -> (
        events: [(FeedEventID, [UInt8])], reset: Bool, newest: FeedEventID
    ) {
        let page = try store.events(after: lastEventID, limit: settings.replayLimit + 1)
        if page.missed || page.entries.count > settings.replayLimit {
            let newest = try store.lastEventID()
            return ([(newest, ServerSentEvents.reset(id: newest))], true, newest)
        }
        let previews = try renderPreviews(Self.previewsNamed(in: page.entries))
        var likes: [Int64: LikeCount] = [:]
        var rendered: [(FeedEventID, [UInt8])] = []
        for entry in page.entries {
            guard let event = entry.event, let bytes = render(event, id: entry.id, likes: &likes, previews: previews)
            else { continue }
            rendered.append((entry.id, bytes))
        }
        return (rendered, false, page.entries.last?.id ?? lastEventID)
    }

    /// The SSE bytes of one log entry; nil when there is nothing to send (a like count older
    /// than one sent, a preview no longer live). `previews`: the items `renderPreviews` gave.
    private func render(
        _ event: FeedEvent, id: FeedEventID, likes: inout [Int64: LikeCount], previews: [Int64: [UInt8]]
    ) -> [UInt8]? {
        let data: [UInt8]
        switch event {
        case .preview(let streamId, _):
            guard let item = previews[streamId] else { return nil }
            data = item
        case .removed(let streamId, let version):
            likes[streamId] = nil
            data = FeedEvent.removedJSON(streamId: streamId, version: version)
        case .likes(let streamId, let count):
            if let sent = likes[streamId], (sent.version, sent.sequence) >= (count.version, count.sequence) {
                return nil
            }
            likes[streamId] = count
            data = FeedEvent.likesJSON(streamId: streamId, likes: count.likes)
        }
        return ServerSentEvents.event(id: id, name: event.name, data: data)
    }

    /// A heartbeat to each stream that has been quiet for its share of `heartbeatSeconds`.
    private func sendHeartbeats() {
        let open = streams.withLock { Array($0.values) }
        let now = EventStreamConnection.now()
        let period = Int64(settings.heartbeatSeconds * 1000)
        for stream in open { stream.heartbeatIfQuiet(now: now, periodMilliseconds: period) }
    }

    private func broadcast(_ bytes: [UInt8], id: FeedEventID?) {
        let open = streams.withLock { Array($0.values) }
        for stream in open {
            if let id { stream.send(event: bytes, id: id) } else { stream.send(bytes) }
        }
    }

    // MARK: The log's follower

    /// The log has new entries (announced on the change channel), or may have (resubscribed).
    func poke() {
        wakeup.lock()
        state.withLock { $0.poked = true }
        wakeup.signal()
        wakeup.unlock()
    }

    package func start() {
        let thread = Thread { [self] in follow() }
        thread.name = "feed-events"
        thread.start()
    }

    /// Ends the follower after its current read; the streams themselves end with the HTTP server.
    package func stop() {
        wakeup.lock()
        state.withLock { $0.stopped = true }
        wakeup.signal()
        wakeup.unlock()
    }

    private func follow() {
        var last: FeedEventID?
        var failures = 0
        var nextHeartbeats = Date(timeIntervalSinceNow: settings.pollSeconds)
        while true {
            wakeup.lock()
            if !state.withLock({ $0.stopped || $0.poked }) {
                _ = wakeup.wait(until: nextHeartbeats)
            }
            let stopped = state.withLock { state in
                state.poked = false
                return state.stopped
            }
            wakeup.unlock()
            if stopped { return }
            if Date() >= nextHeartbeats {
                sendHeartbeats()
                nextHeartbeats = Date(timeIntervalSinceNow: settings.pollSeconds)
            }
            do {
                // Started at the log's end: a new process sends what happens from now on.
                if last == nil { last = try store.lastEventID() }
                last = try readNew(after: last ?? .zero)
                if failures > 0 { Log.info("feed_events_resumed", [:]) }
                failures = 0
            } catch {
                failures += 1
                if failures == 1 { Log.warn("feed_events_unreadable", ["error": "\(error)"]) }
            }
        }
    }

    /// Sends every entry after `last`; returns the newest ID read.
    private func readNew(after last: FeedEventID) throws -> FeedEventID {
        var last = last
        while true {
            let page = try store.events(after: last, limit: 256)
            if page.missed {
                // Behind by more than the log holds (or the log is new): every stream reloads.
                let newest = try store.lastEventID()
                broadcast(ServerSentEvents.reset(id: newest), id: newest)
                state.withLock { $0.likes = [:] }
                return newest
            }
            var likes = state.withLock { $0.likes }
            let previews: [Int64: [UInt8]]
            do {
                previews = try renderPreviews(Self.previewsNamed(in: page.entries))
            } catch {
                // Their previews could not be read now: the clients' next reload shows them.
                Log.warn("feed_event_unrendered", ["after": last.description, "error": "\(error)"])
                previews = [:]
            }
            for entry in page.entries {
                last = entry.id
                guard let event = entry.event,
                    let bytes = render(event, id: entry.id, likes: &likes, previews: previews)
                else { continue }
                broadcast(bytes, id: entry.id)
                state.withLock { $0.sent += 1 }
            }
            state.withLock { $0.likes = likes }
            if page.entries.count < 256 { return last }
        }
    }
}

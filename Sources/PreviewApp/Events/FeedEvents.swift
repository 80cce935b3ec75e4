import Foundation
import PreviewCore
import PreviewRedis
import Synchronization

/// `GET /api/feed/events` of this process: the event streams it holds, and one thread that
/// follows the event log (`PreviewStore.events(after:limit:)`) and sends each new entry to all
/// of them, rendered once. The thread reads the log when the change channel announces new
/// entries (`FeedChangeListener` calls `poke()`, for this process's changes and every other
/// replica's) and at least every `pollSeconds` in case an announcement was lost; it also sends
/// the heartbeats. A stream resumed with `Last-Event-ID` is replayed from the log first, or
/// told to `reset` when the log no longer holds what it missed.
final class FeedEvents: Sendable {
    struct Settings: Sendable {
        /// Seconds between heartbeat comments. A client that left is noticed within two: a
        /// suspended connection is not watched, and the first write after it closed still succeeds.
        var heartbeatSeconds = 15.0
        /// Bytes one stream may have waiting before its client is taken as not reading and dropped.
        var maxPendingBytes = 64 * 1024
        /// The most events replayed to one resuming client; more and it is told to reset.
        var replayLimit = 1000
        /// The `retry:` a client waits before reconnecting, in milliseconds.
        var retryMilliseconds = 3000
        /// The longest the log goes unread when no announcement comes.
        var pollSeconds = 1.0
    }

    /// Renders a `preview` event's data: the stream's feed item with URLs minted now; nil when the
    /// stream is no longer live (its `removed` event follows in the log).
    typealias RenderPreview = @Sendable (_ streamId: Int64) throws -> [UInt8]?

    private let store: PreviewStore
    private let settings: Settings
    private let renderPreview: RenderPreview
    private let streams = Mutex<[ObjectIdentifier: EventStreamConnection]>([:])
    private let wakeup = NSCondition()
    private let state = Mutex(TailState())

    private struct TailState {
        var stopped = false
        var poked = false
        /// The newest like count sent per stream: a count the log holds out of order is not sent.
        var likes: [Int64: LikeCount] = [:]
        var sent = 0
    }

    init(store: PreviewStore, settings: Settings = Settings(), renderPreview: @escaping RenderPreview) {
        self.store = store
        self.settings = settings
        self.renderPreview = renderPreview
    }

    /// The event streams of a server: a `preview` event carries the stream's feed item as the
    /// feed renders it for an anonymous viewer, URLs minted when it is sent.
    static func serving(_ context: AppContext, settings: Settings) -> FeedEvents {
        FeedEvents(store: context.store, settings: settings) { [context] streamId in
            let now = context.now
            guard let stream = try context.store.liveStream(streamId: streamId), stream.preview.expiresAt > now else {
                return nil
            }
            return try context.feedItem(stream, seen: false, liked: false, now: now).jsonBytes()
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
        let connection = EventStreamConnection(maxPendingBytes: settings.maxPendingBytes) { [weak self] closed in
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
            let (events, reset) = try replay(after: lastEventID)
            connection.endReplay(events, reset: reset)
        } catch {
            _ = streams.withLock { $0.removeValue(forKey: ObjectIdentifier(connection)) }
            throw error
        }
        return connection
    }

    /// The events after `lastEventID`, rendered; a lone `reset` when the log lost some of them or
    /// they are more than `replayLimit`.
    private func replay(after lastEventID: FeedEventID) throws -> (events: [(FeedEventID, [UInt8])], reset: Bool) {
        let page = try store.events(after: lastEventID, limit: settings.replayLimit)
        if page.missed || page.entries.count >= settings.replayLimit {
            let newest = try store.lastEventID()
            return ([(newest, ServerSentEvents.reset(id: newest))], true)
        }
        var likes: [Int64: LikeCount] = [:]
        var rendered: [(FeedEventID, [UInt8])] = []
        for entry in page.entries {
            guard let event = entry.event, let bytes = try render(event, id: entry.id, likes: &likes) else { continue }
            rendered.append((entry.id, bytes))
        }
        return (rendered, false)
    }

    /// The SSE bytes of one log entry; nil when there is nothing to send (a like count older
    /// than one sent, a preview no longer live).
    private func render(_ event: FeedEvent, id: FeedEventID, likes: inout [Int64: LikeCount]) throws -> [UInt8]? {
        let data: [UInt8]
        switch event {
        case .preview(let streamId, _):
            guard let item = try renderPreview(streamId) else { return nil }
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

    func start() {
        let thread = Thread { [self] in follow() }
        thread.name = "feed-events"
        thread.start()
    }

    /// Ends the follower after its current read; the streams themselves end with the HTTP server.
    func stop() {
        wakeup.lock()
        state.withLock { $0.stopped = true }
        wakeup.signal()
        wakeup.unlock()
    }

    private func follow() {
        var last: FeedEventID?
        var failures = 0
        var nextHeartbeat = Date(timeIntervalSinceNow: settings.heartbeatSeconds)
        while true {
            wakeup.lock()
            if !state.withLock({ $0.stopped || $0.poked }) {
                _ = wakeup.wait(until: min(nextHeartbeat, Date(timeIntervalSinceNow: settings.pollSeconds)))
            }
            let stopped = state.withLock { state in
                state.poked = false
                return state.stopped
            }
            wakeup.unlock()
            if stopped { return }
            if Date() >= nextHeartbeat {
                broadcast(ServerSentEvents.heartbeat, id: nil)
                nextHeartbeat = Date(timeIntervalSinceNow: settings.heartbeatSeconds)
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
            for entry in page.entries {
                last = entry.id
                guard let event = entry.event else { continue }
                let bytes: [UInt8]?
                do {
                    bytes = try render(event, id: entry.id, likes: &likes)
                } catch {
                    // Its preview could not be read now: the clients' next reload shows it.
                    Log.warn("feed_event_unrendered", ["id": entry.id.description, "error": "\(error)"])
                    continue
                }
                guard let bytes else { continue }
                broadcast(bytes, id: entry.id)
                state.withLock { $0.sent += 1 }
            }
            state.withLock { $0.likes = likes }
            if page.entries.count < 256 { return last }
        }
    }
}

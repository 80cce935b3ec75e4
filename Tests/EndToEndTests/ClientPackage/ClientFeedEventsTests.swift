import Foundation
import PreviewTestSupport
import StreamPreviewClient
import Testing

/// The viewer side of the package against a real `serve`: the feed, likes and seen marks, and the
/// live events, resumed with `Last-Event-ID` after a drop and reset when the log lost them.
@Suite("StreamPreviewClient feed and events, end to end")
struct ClientFeedEventsTests {
    /// The next event of `iterator`, within a generous deadline (the machine is shared).
    func next(_ iterator: inout FeedEvents.Iterator, sourceLocation: SourceLocation = #_sourceLocation)
        async throws -> FeedEvent
    {
        let event = try await iterator.next()
        return try #require(event, "the event stream ended", sourceLocation: sourceLocation)
    }

    @Test(
        "The upload, the feed with the viewer's flags, its ETag revalidated to nil, like, unlike and seen, in either encoding",
        arguments: APIEncoding.allCases)
    func feedLikesSeen(encoding: APIEncoding) async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        let published = try await fixture.client(token: fixture.streamer, encoding: encoding).upload(
            stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        let viewer = try fixture.client(token: fixture.viewer, encoding: encoding)
        let feed = try #require(try await viewer.feed())
        #expect(feed.items.map(\.streamId) == [42] && feed.items.map(\.previewVersion) == [1])
        #expect(feed.items.map(\.durationMs) == [published.item.durationMs])
        let etag = try #require(feed.etag)
        #expect(try await viewer.feed(ifNoneMatch: etag) == nil, "an unchanged feed is a 304")

        #expect(try await viewer.like(stream: 42) == LikeState(likes: 1, liked: true))
        try await viewer.markSeen(stream: 42)
        let after = try #require(try await viewer.feed(ifNoneMatch: etag), "a like changes the feed")
        #expect(after.items.map(\.likes) == [1] && after.items.map(\.liked) == [true])
        #expect(after.items.map(\.seen) == [true])
        let anonymous = try #require(try await fixture.client(token: nil, encoding: encoding).feed(limit: 5))
        #expect(anonymous.items.map(\.liked) == [false] && anonymous.items.map(\.likes) == [1])
        #expect(try await viewer.unlike(stream: 42) == LikeState(likes: 0, liked: false))
    }

    @Test("A commit, a like and an end of stream arrive as typed events; a new sequence resumes from an ID")
    func liveAndResume() async throws {
        try await withDeadline {
            let fixture = try ClientFixture()
            defer { fixture.removeFolder() }
            let streamer = try fixture.client(token: fixture.streamer)
            let viewer = try fixture.client(token: fixture.viewer)
            var events = try fixture.client(token: nil).events().makeAsyncIterator()
            // The first next() opens the stream; the commit runs beside it until the stream is open.
            async let published = Self.publishOnceListening(fixture, streamer)
            let preview = try await next(&events)
            let item = try await published
            // The event's item has URLs of its own (signed when it was rendered): compare the rest.
            var shown = try #require(previewed(preview.change), "\(preview)")
            shown.movieUrl = item.movieUrl
            shown.thumbnailUrl = item.thumbnailUrl
            #expect(shown == item)
            _ = try await viewer.like(stream: 42)
            let likes = try await next(&events)
            #expect(likes.change == .likes(streamId: 42, likes: 1))
            try await streamer.endStream(42)
            #expect(try await next(&events).change == .removed(streamId: 42, previewVersion: 1))

            var resumed = try fixture.client(token: nil).events(lastEventId: preview.id).makeAsyncIterator()
            #expect(try await next(&resumed) == likes, "the event after the given ID, with its ID")
        }
    }

    @Test("After the connection drops the sequence reconnects with Last-Event-ID and misses nothing")
    func reconnect() async throws {
        try await withDeadline {
            let fixture = try ClientFixture()
            defer { fixture.removeFolder() }
            let relay = try TCPRelay(upstream: fixture.service.baseURL)
            let streamer = try fixture.client(token: fixture.streamer)
            var events = try fixture.client(token: nil, server: relay.url).events().makeAsyncIterator()
            async let published = Self.publishOnceListening(fixture, streamer)
            let preview = try await next(&events)
            _ = try await published
            let id = try #require(preview.id)
            relay.cutAll()
            let viewers = try (0..<3).map { try fixture.service.token(sub: "v\($0)", role: "viewer") }
            for token in viewers { _ = try await fixture.client(token: token).like(stream: 42) }
            var changes: [FeedChange] = []
            for _ in viewers { changes.append(try await next(&events).change) }
            #expect(changes == (1...3).map { .likes(streamId: 42, likes: $0) })
            let heads = relay.heads
            #expect(heads.count == 2, "one reconnection: \(heads.count)")
            // Field names are case-insensitive (FoundationNetworking writes Last-Event-Id).
            #expect(heads.last?.lowercased().contains("\r\nlast-event-id: \(id)\r\n") == true, "\(heads.last ?? "")")
            relay.stop()
        }
    }

    @Test("An ID the log no longer holds gives a reset event")
    func reset() async throws {
        try await withDeadline {
            let fixture = try ClientFixture(arguments: ["--events-history", "10"])
            defer { fixture.removeFolder() }
            let streamer = try fixture.client(token: fixture.streamer)
            var first = try fixture.client(token: nil).events().makeAsyncIterator()
            async let published = Self.publishOnceListening(fixture, streamer)
            let oldest = try #require(try await next(&first).id)
            _ = try await published
            let viewer = try fixture.client(token: fixture.viewer)
            // The log trims whole nodes of 100 entries: 300 events drop the first.
            for _ in 0..<150 {
                _ = try await viewer.like(stream: 42)
                _ = try await viewer.unlike(stream: 42)
            }
            var late = try fixture.client(token: nil).events(lastEventId: oldest).makeAsyncIterator()
            #expect(try await next(&late).change == .reset)
        }
    }

    /// Publishes stream 42 once the server counts an open event stream (so the stream gets its event).
    static func publishOnceListening(_ fixture: ClientFixture, _ streamer: StreamPreviewClient) async throws
        -> FeedItem
    {
        let deadline = ContinuousClock.now + .seconds(30)
        while try await openEventStreams(fixture) == 0 {
            try #require(ContinuousClock.now < deadline, "no event stream opened within 30 s")
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return try await streamer.upload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL).item
    }
}

/// The server's count of open event streams (`streampreview_event_streams_open` of `/metrics`).
func openEventStreams(_ fixture: ClientFixture) async throws -> Int {
    let value = try APIClient(fixture.service).metricValue("streampreview_event_streams_open")
    return Int(try #require(value, "no streampreview_event_streams_open in /metrics")) ?? -1
}

/// The item of a `.preview` change.
func previewed(_ change: FeedChange) -> FeedItem? {
    if case .preview(let item) = change { return item }
    return nil
}

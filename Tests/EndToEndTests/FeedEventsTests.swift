import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `GET /api/feed/events`: server-sent events of the live list, resumed with `Last-Event-ID`.
@Suite("Live feed events")
struct FeedEventsTests {
    /// The next event, which must be `name`.
    func expectNext(_ client: EventStreamClient, _ name: String, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> ServerSentEvent
    {
        let event = try client.next()
        try #require(event.name == name, "expected \(name), got \(event)", sourceLocation: sourceLocation)
        #expect(
            event.id.flatMap(FeedEventID.init) != nil, "event without a log ID: \(event)",
            sourceLocation: sourceLocation)
        return event
    }

    @Test("A commit, a like and an end of stream reach an open stream as preview, likes and removed, in order")
    func liveEvents() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let ann = try service.token(sub: "ann", role: "viewer")
        let client = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(client.status == 200)
        #expect(client.header("Content-Type") == "text/event-stream")
        #expect(client.header("Cache-Control") == "no-store")

        let published = try api.publish(streamId: 42, token: sam)
        let preview = try expectNext(client, "preview")
        let item = try FeedItem(json: Array(preview.data.utf8))
        #expect(item.streamId == 42 && item.previewVersion == published.previewVersion)
        // The URLs are fresh and work.
        #expect(try api.send("GET", item.movieUrl).body == TestMedia.mp4())
        #expect(client.retryMilliseconds == 3000)

        #expect(try api.send("POST", "/api/streams/42/like", token: ann).status == 200)
        let likes = try expectNext(client, "likes")
        #expect(likes.data == #"{"streamId":"42","likes":"1"}"#)

        #expect(try api.send("DELETE", "/api/preview/42", token: sam).status == 204)
        let removed = try expectNext(client, "removed")
        #expect(removed.data == #"{"streamId":"42","previewVersion":"\#(published.previewVersion)"}"#)
        let ids = [preview, likes, removed].compactMap { $0.id.flatMap(FeedEventID.init) }
        #expect(ids.count == 3 && ids == ids.sorted() && Set(ids).count == 3, "\(ids)")
    }

    @Test("A client that reconnects with Last-Event-ID gets every event it missed, none twice, then live ones")
    func resume() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let viewers = try (0..<3).map { try service.token(sub: "v\($0)", role: "viewer") }
        var client = try EventStreamClient(service.baseURL + "/api/feed/events")
        try api.publish(streamId: 42, token: sam)
        let last = try #require(try expectNext(client, "preview").id)
        client.disconnect()

        for viewer in viewers { #expect(try api.send("POST", "/api/streams/42/like", token: viewer).status == 200) }
        client = try EventStreamClient(service.baseURL + "/api/feed/events", headers: [("Last-Event-ID", last)])
        var seen: [ServerSentEvent] = []
        for _ in viewers { seen.append(try expectNext(client, "likes")) }
        #expect(seen.map(\.data) == (1...3).map { #"{"streamId":"42","likes":"\#($0)"}"# })
        #expect(try api.send("DELETE", "/api/preview/42", token: sam).status == 204)
        seen.append(try expectNext(client, "removed"))
        let ids = ([last] + seen.compactMap(\.id)).compactMap(FeedEventID.init)
        #expect(ids.count == 5 && ids == ids.sorted() && Set(ids).count == 5, "\(ids)")

        // The same through the query, as a page that stored the ID may open it.
        let byQuery = try EventStreamClient(service.baseURL + "/api/feed/events?lastEventId=" + last)
        #expect(try expectNext(byQuery, "likes").data == #"{"streamId":"42","likes":"1"}"#)
    }

    @Test("An ID the log no longer holds, one past its end, or one that is no ID gets a reset event")
    func reset() throws {
        let service = try ServiceProcess(arguments: ["--events-history", "10"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let ann = try service.token(sub: "ann", role: "viewer")
        let first = try EventStreamClient(service.baseURL + "/api/feed/events")
        try api.publish(streamId: 42, token: sam)
        let oldest = try #require(try expectNext(first, "preview").id)
        // MAXLEN ~ trims whole nodes of the log (100 entries each): 300 events drop the first.
        for index in 0..<150 {
            let method = index % 2 == 0 ? "POST" : "DELETE"
            #expect(try api.send(method, "/api/streams/42/like", token: ann).status == 200)
            #expect(
                try api.send(method == "POST" ? "DELETE" : "POST", "/api/streams/42/like", token: ann).status == 200)
        }
        for lastEventID in [oldest, "99999999999999-0", "not-an-id"] {
            let client = try EventStreamClient(
                service.baseURL + "/api/feed/events", headers: [("Last-Event-ID", lastEventID)])
            let reset = try client.next()
            #expect(reset.name == "reset" && reset.data == "{}", "\(lastEventID): \(reset)")
        }
    }

    @Test("2,000 open event streams each get a commit's preview event")
    func twoThousandStreams() throws {
        let service = try ServiceProcess(arguments: ["--max-event-streams-per-ip", "2000"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let clients = try (0..<2000).map { _ in try EventStreamClient(service.baseURL + "/api/feed/events") }
        let published = try api.publish(streamId: 42, token: sam)
        var delivered = 0
        for client in clients {
            let event = try client.next()
            guard event.name == "preview" else { continue }
            let item = try FeedItem(json: Array(event.data.utf8))
            if item.streamId == 42, item.previewVersion == published.previewVersion { delivered += 1 }
        }
        #expect(delivered == 2000)
    }

    @Test("Event streams have their own per-address limit: one over it is 503, and the address's requests go on")
    func perAddressLimit() throws {
        let service = try ServiceProcess(arguments: [
            "--max-event-streams-per-ip", "3", "--max-connections-per-ip", "3",
        ])
        let api = try APIClient(service)
        let held = try (0..<3).map { _ in try EventStreamClient(service.baseURL + "/api/feed/events") }
        #expect(held.allSatisfy { $0.status == 200 })
        let refused = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After").flatMap(Int.init).map { (5...15).contains($0) } == true)
        // The three streams hold stream slots, so the address still has its three connections.
        #expect(try api.send("GET", "/healthz").status == 200)
        #expect(try api.send("GET", "/api/feed").status == 200)
    }

    @Test("Heartbeat comments arrive on a quiet stream")
    func heartbeats() throws {
        let service = try ServiceProcess(arguments: ["--events-heartbeat", "1"])
        let client = try EventStreamClient(service.baseURL + "/api/feed/events")
        try client.waitForComments(3)
        #expect(client.comments >= 3)
    }

    @Test("Stopping the server ends open event streams instead of waiting out the shutdown timeout")
    func stopEndsStreams() throws {
        let service = try ServiceProcess(arguments: ["--shutdown-timeout", "600"])
        let clients = try (0..<3).map { _ in try EventStreamClient(service.baseURL + "/api/feed/events") }
        service.send(signal: SIGTERM)
        // Were the streams left open, serve would wait 600 s for them.
        #expect(service.waitForExit(timeout: 60) == 0)
        for client in clients { #expect(try client.closedByServer()) }
    }

    /// The next `likes` event; the publish's `preview` event may still reach a stream opened just
    /// after it (the log is read by another thread), so it is passed over; nil for any other event.
    func nextLikes(_ client: EventStreamClient) throws -> ServerSentEvent? {
        var event = try client.next()
        if event.name == "preview" { event = try client.next() }
        return event.name == "likes" ? event : nil
    }

    @Test("A client that stops reading is dropped once its events pass the bound; the others go on")
    func clientThatDoesNotReadIsDropped() throws {
        // --idle-timeout 600: the bound drops the client, not the lack of progress.
        let service = try ServiceProcess(arguments: ["--idle-timeout", "600"])
        let api = try APIClient(service)
        let sam = try service.token(sub: "sam", role: "streamer", streams: [42])
        let ann = try service.token(sub: "ann", role: "viewer")
        try api.publish(streamId: 42, token: sam)
        let stalled = try EventStreamClient(service.baseURL + "/api/feed/events", receiveBuffer: 4096)
        let reader = try EventStreamClient(service.baseURL + "/api/feed/events")
        #expect(eventually(within: 30) { (try? api.metricValue("streampreview_event_streams_open")) == "2" })
        // About 80 bytes an event: 5,000 are far over the 64 KiB bound plus what the sockets hold
        // (the server caps a stream's send buffer; the client's receive buffer is 4 KiB).
        for index in 0..<5000 {
            #expect(try api.send(index % 2 == 0 ? "POST" : "DELETE", "/api/streams/42/like", token: ann).status == 200)
            // The reading client keeps up: it gets every event.
            #expect(try nextLikes(reader) != nil)
        }
        #expect(eventually(within: 60) { (try? api.metricValue("streampreview_event_streams_open")) == "1" })
        #expect(try api.send("POST", "/api/streams/42/like", token: ann).status == 200)
        #expect(try nextLikes(reader)?.data == #"{"streamId":"42","likes":"1"}"#)
        _ = stalled
    }

    @Test("A client that goes away is forgotten at once, without waiting for a heartbeat")
    func clientLeaves() throws {
        let service = try ServiceProcess(arguments: ["--events-heartbeat", "3600"])
        let api = try APIClient(service)
        let clients = try (0..<4).map { _ in try EventStreamClient(service.baseURL + "/api/feed/events") }
        #expect(eventually(within: 30) { (try? api.metricValue("streampreview_event_streams_open")) == "4" })
        for client in clients { client.disconnect() }
        // The server watches an idle stream's socket for its client's close: no write is needed.
        #expect(eventually(within: 10) { (try? api.metricValue("streampreview_event_streams_open")) == "0" })
    }
}

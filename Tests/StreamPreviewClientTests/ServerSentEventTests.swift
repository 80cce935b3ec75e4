import Foundation
import Testing

@testable import StreamPreviewClient

/// The event-stream parser and the mapping of events to feed changes.
@Suite("Server-sent events")
struct ServerSentEventTests {
    @Test("Events split across chunks and line endings parse whole; comments and retry are read")
    func parse() {
        var parser = ServerSentEventParser()
        let text =
            "retry: 3000\r\n: keep-alive\r\nevent: likes\r\nid: 1-0\r\ndata: {\"streamId\":\"42\",\r\n"
            + "data: \"likes\":\"1\"}\r\n\r\nevent: reset\nid: 2-0\ndata: {}\n\n: x\n\nevent: preview\rdata: 1\r\r"
        for byte in Array(text.utf8) { parser.feed([byte]) }
        var events: [ServerSentEvent] = []
        while let event = parser.next() { events.append(event) }
        #expect(
            events == [
                ServerSentEvent(id: "1-0", name: "likes", data: "{\"streamId\":\"42\",\n\"likes\":\"1\"}"),
                ServerSentEvent(id: "2-0", name: "reset", data: "{}"),
                ServerSentEvent(id: "2-0", name: "preview", data: "1"),
            ])
        #expect(parser.retryMilliseconds == 3000 && parser.lastEventId == "2-0")
    }

    @Test("A half-read event is dropped when its connection goes")
    func partial() {
        var parser = ServerSentEventParser()
        parser.feed(Array("event: likes\ndata: {}\n".utf8))
        parser.dropPartial()
        parser.feed(Array("\n".utf8))
        #expect(parser.next() == nil)
    }

    @Test("Events map to typed changes; unknown kinds are skipped")
    func changes() {
        let change = FeedEvents.Iterator.change
        #expect(
            change(ServerSentEvent(id: "1-0", name: "likes", data: #"{"streamId":"42","likes":"3"}"#))
                == .likes(streamId: 42, likes: 3))
        #expect(
            change(ServerSentEvent(id: "1-0", name: "removed", data: #"{"streamId":"42","previewVersion":"2"}"#))
                == .removed(streamId: 42, previewVersion: 2))
        #expect(change(ServerSentEvent(id: "1-0", name: "reset", data: "{}")) == .reset)
        #expect(change(ServerSentEvent(id: "1-0", name: "future", data: "{}")) == nil)
        let preview = change(
            ServerSentEvent(
                id: "1-0", name: "preview",
                data: #"{"streamId":"7","movieUrl":"m","thumbnailUrl":"t","likes":"1","liked":false,"seen":false,"#
                    + #""previewVersion":"2","updatedAt":"10","expiresAt":"20","durationMs":"2000","width":160,"#
                    + #""height":90,"fastStart":true,"stale":false}"#))
        let expected = FeedItem(
            streamId: 7, movieUrl: "m", thumbnailUrl: "t", likes: 1, previewVersion: 2, updatedAt: 10, expiresAt: 20,
            durationMs: 2000, width: 160, height: 90, fastStart: true)
        #expect(preview == .preview(expected))
    }
}

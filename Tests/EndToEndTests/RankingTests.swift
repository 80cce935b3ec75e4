import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The play order over HTTP: unseen (newest first), then seen (most liked first); `current`, `limit`.
@Suite("Feed ranking")
struct RankingTests {
    @Test(
        "Unseen streams come first, newest first; seen ones follow by likes; current leads; a new clip is unseen again")
    func playOrder() throws {
        let service = try ServiceProcess(testClock: true)
        let api = try APIClient(service)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: [101, 102, 103, 104])
        let viewerA = try service.token(sub: "ann", role: "viewer")
        let viewerB = try service.token(sub: "bob", role: "viewer")
        let viewer = try service.token(sub: "vic", role: "viewer")

        var items: [Int64: FeedItem] = [:]
        for stream: Int64 in [101, 102] { items[stream] = try api.publish(streamId: stream, token: streamer) }
        // The next two commits land in a later second than the first two: the server's clock moves on.
        let firstSecond = try #require(items[102]).updatedAt
        try service.shiftClock(by: 5)
        for stream: Int64 in [103, 104] { items[stream] = try api.publish(streamId: stream, token: streamer) }
        #expect(try #require(items[103]).updatedAt > firstSecond)

        // Likes: 101 → 1, 102 → 2, 103 → 0, 104 → 1.
        for (stream, token) in [(101, viewerA), (102, viewerA), (102, viewerB), (104, viewerB)] {
            let reply = try api.send("POST", "/api/streams/\(stream)/like", token: token)
            #expect(reply.status == 200, "\(reply.text)")
        }

        // Anonymous: all unseen; newer second first whatever the likes, then likes within a second.
        let anonymous = try api.feedItems()
        #expect(anonymous.map(\.streamId) == [104, 103, 102, 101])
        #expect(anonymous.allSatisfy { !$0.seen && !$0.liked })
        #expect(anonymous.map(\.likes) == [1, 0, 2, 1])

        // ann's own likes show as liked, nobody else's.
        let ofAnn = try api.feedItems(token: viewerA)
        #expect(Set(ofAnn.filter(\.liked).map(\.streamId)) == [101, 102])

        // vic saw 104 and 102: unseen 103, 101 first (newest first), then seen by likes: 102 (2) before 104 (1).
        for stream in [104, 102] {
            #expect(try api.send("POST", "/api/streams/\(stream)/seen", token: viewer).status == 204)
        }
        let ofVic = try api.feedItems(token: viewer)
        #expect(ofVic.map(\.streamId) == [103, 101, 102, 104])
        #expect(ofVic.map(\.seen) == [false, false, true, true])

        #expect(try api.feedItems(token: viewer, query: "current=101").map(\.streamId) == [101, 103, 102, 104])
        #expect(try api.feedItems(token: viewer, query: "current=104").map(\.streamId) == [104, 103, 101, 102])
        #expect(try api.feedItems(token: viewer, query: "current=999").map(\.streamId) == [103, 101, 102, 104])
        #expect(try api.feedItems(token: viewer, query: "limit=1").map(\.streamId) == [103])
        #expect(try api.feedItems(token: viewer, query: "limit=2&current=104").map(\.streamId) == [104, 103])
        #expect(try api.feedItems(token: viewer, query: "limit=500").count == 4)

        // A new clip of 104 is new content: unseen again for vic, and the newest.
        let replaced = try api.publish(streamId: 104, token: streamer, movie: TestMedia.mp4(size: 3000, seed: 9))
        #expect(replaced.previewVersion == 2)
        let afterReplace = try api.feedItems(token: viewer)
        #expect(afterReplace.map(\.streamId) == [104, 103, 101, 102])
        #expect(afterReplace.first?.seen == false)
        #expect(afterReplace.first?.previewVersion == 2)
    }

    @Test("Bad limit and current values are 400 and a bad token on the feed is 401")
    func badFeedQueries() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        for query in ["limit=0", "limit=-3", "limit=abc"] {
            expectError(try api.feed(query: query), status: 400, code: "invalid_argument", target: "limit")
        }
        expectError(try api.feed(query: "current=abc"), status: 400, code: "invalid_argument", target: "current")
        expectError(try api.feed(token: "not-a-token"), status: 401, code: "unauthenticated")
        let other = try ServiceProcess()
        let foreign = try other.token(sub: "eve", role: "viewer")
        expectError(try api.feed(token: foreign), status: 401, code: "unauthenticated")
        #expect(try api.feed().status == 200, "anonymous feed works")
    }

    @Test("A limit above the maximum is capped at 100 items rather than refused")
    func limitIsCapped() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let streams = Array(Int64(1)...105)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: streams)
        for stream in streams { try api.publish(streamId: stream, token: streamer, movie: TestMedia.mp4(size: 200)) }
        #expect(try api.feedItems(query: "limit=500").count == 100)
        #expect(try api.feedItems().count == 20, "the default limit")
    }
}

import PreviewCore
import PreviewTestSupport
import Testing

/// Likes, seen marks, and taking a preview down.
@Suite("Likes, seen marks and deletes")
struct LikesAndSeenTests {
    @Test("Likes are idempotent per viewer, unlikes never go below zero, and two viewers make two")
    func likes() throws {
        let stream = try PublishedStream()
        let (api, ann, bob) = (stream.api, stream.ann, stream.bob)

        for _ in 0..<2 {
            let reply = try api.send("POST", "/api/streams/42/like", token: ann)
            #expect(reply.status == 200)
            #expect(try reply.json(LikeResponse.self) == LikeResponse(likes: 1, liked: true))
            #expect(reply.text.contains(#""likes":"1""#), "\(reply.text)")
        }
        #expect(try api.feedItems(token: ann).first?.liked == true)
        #expect(try api.feedItems(token: bob).first?.liked == false)

        for _ in 0..<2 {
            let reply = try api.send("DELETE", "/api/streams/42/like", token: ann)
            #expect(reply.status == 200)
            #expect(try reply.json(LikeResponse.self) == LikeResponse(likes: 0, liked: false))
            #expect(reply.text.contains(#""likes":"0""#) && reply.text.contains(#""liked":false"#), "\(reply.text)")
        }
        // bob never liked it: unliking changes nothing.
        #expect(try api.send("DELETE", "/api/streams/42/like", token: bob).json(LikeResponse.self).likes == 0)

        #expect(try api.send("POST", "/api/streams/42/like", token: ann).json(LikeResponse.self).likes == 1)
        #expect(try api.send("POST", "/api/streams/42/like", token: bob).json(LikeResponse.self).likes == 2)
        #expect(try api.feedItems().first?.likes == 2)
    }

    @Test("Liking, unliking or marking seen a stream without a live preview is 404 stream_not_live")
    func notLive() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let ann = try service.token(sub: "ann", role: "viewer")
        for (method, path) in [("POST", "like"), ("DELETE", "like"), ("POST", "seen")] {
            let reply = try api.send(method, "/api/streams/777/\(path)", token: ann)
            expectError(reply, status: 404, code: "stream_not_live", target: "streamId")
        }
        expectError(try api.send("POST", "/api/streams/abc/like", token: ann), status: 400, code: "invalid_argument")
    }

    @Test("Seen is 204 and shows as seen for that viewer only")
    func seenIsPerViewer() throws {
        let stream = try PublishedStream()
        let (api, ann, bob) = (stream.api, stream.ann, stream.bob)
        let seen = try api.send("POST", "/api/streams/42/seen", token: ann)
        #expect(seen.status == 204)
        #expect(seen.body.isEmpty)
        #expect(try api.feedItems(token: ann).map(\.seen) == [true])
        #expect(try api.feedItems(token: bob).map(\.seen) == [false])
        #expect(try api.feedItems().map(\.seen) == [false])
    }

    @Test("Its streamer or an admin may take a preview down; viewers and other streamers get 403")
    func deletePreview() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let owner = try service.token(sub: "sam", role: "streamer", streams: [42, 43])
        let other = try service.token(sub: "oli", role: "streamer", streams: [44])
        let viewer = try service.token(sub: "ann", role: "viewer")
        let admin = try service.token(sub: "root", role: "admin")
        try api.publish(streamId: 42, token: owner)
        try api.publish(streamId: 43, token: owner)

        expectError(try api.send("DELETE", "/api/preview/42", token: viewer), status: 403, code: "forbidden")
        expectError(
            try api.send("DELETE", "/api/preview/42", token: other), status: 403, code: "forbidden", target: "streamId")
        expectError(try api.send("DELETE", "/api/preview/42"), status: 401, code: "unauthenticated")
        #expect(try api.feedItems().map(\.streamId).sorted() == [42, 43], "refused deletes change nothing")

        let byOwner = try api.send("DELETE", "/api/preview/42", token: owner)
        #expect(byOwner.status == 204)
        #expect(try api.feedItems().map(\.streamId) == [43])
        expectError(
            try api.send("POST", "/api/streams/42/like", token: viewer), status: 404, code: "stream_not_live")

        #expect(try api.send("DELETE", "/api/preview/43", token: admin).status == 204)
        #expect(try api.feedItems().isEmpty)
    }
}

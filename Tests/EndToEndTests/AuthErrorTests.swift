import PreviewCore
import PreviewTestSupport
import Testing

/// Who may call what: 401 without a valid bearer token, 403 without the right to the stream.
@Suite("Authentication and authorisation errors")
struct AuthErrorTests {
    @Test("Calls without a valid bearer token are 401 unauthenticated and change nothing")
    func unauthenticated() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let streamer = try service.token(sub: "sam", role: "streamer", streams: [42])
        let issued = try api.issue(streamId: 42, movie: TestMedia.mp4(), thumbnail: TestMedia.jpeg(), token: streamer)
        try api.publish(streamId: 42, token: streamer)

        let now = unixNow()
        let expired = craftedToken(
            secret: try service.tokenSecret(), sub: "sam", role: .streamer, streams: [42], issuedAt: now - 7200,
            expiresAt: now - 3600)
        let wrongSecret = craftedToken(
            secret: "not-the-secret", sub: "sam", role: .streamer, streams: [42], issuedAt: now, expiresAt: now + 600)
        // Sanity: the same crafting with the real secret is accepted.
        let crafted = craftedToken(
            secret: try service.tokenSecret(), sub: "ann", role: .viewer, issuedAt: now, expiresAt: now + 600)
        #expect(try api.feed(token: crafted).status == 200)

        let post = #"{"streamId":"42"}"#
        let commit = #"{"streamId":"42","uploadId":"\#(issued.uploadId)"}"#
        let calls: [(String, String, String?)] = [
            ("POST", "/api/preview/post", post), ("POST", "/api/preview/commit", commit),
            ("POST", "/api/streams/42/like", nil), ("DELETE", "/api/streams/42/like", nil),
            ("POST", "/api/streams/42/seen", nil), ("DELETE", "/api/preview/42", nil),
        ]
        let authorizations: [String?] = [
            nil, "Basic x", "Bearer", "Bearer not.a.jwt", "Bearer \(expired)", "Bearer \(wrongSecret)",
            "bearer \(streamer)x",
        ]
        for (method, path, body) in calls {
            for authorization in authorizations {
                var headers = [("Content-Type", "application/json")]
                if let authorization { headers.append(("Authorization", authorization)) }
                let reply = try api.send(method, path, headers: headers, body: body.map { Array($0.utf8) })
                expectError(reply, status: 401, code: "unauthenticated")
                #expect(reply.headers["WWW-Authenticate"] == "Bearer", "\(method) \(path)")
            }
        }
        let items = try api.feedItems()
        #expect(items.map(\.likes) == [0])
        #expect(items.map(\.previewVersion) == [1], "the pending upload was not committed")
    }

    @Test("A token of another stream and a viewer token cannot post, commit or delete: 403 forbidden")
    func forbidden() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let owner = try service.token(sub: "sam", role: "streamer", streams: [42])
        let other = try service.token(sub: "oli", role: "streamer", streams: [43])
        let viewer = try service.token(sub: "ann", role: "viewer")
        let admin = try service.token(sub: "root", role: "admin")
        let issued = try api.issue(streamId: 42, movie: TestMedia.mp4(), thumbnail: TestMedia.jpeg(), token: owner)

        expectError(
            try api.postJSON("/api/preview/post", #"{"streamId":"42"}"#, token: other), status: 403, code: "forbidden",
            target: "streamId")
        expectError(
            try api.postJSON("/api/preview/post", #"{"streamId":"42"}"#, token: viewer), status: 403, code: "forbidden")
        expectError(
            try api.commit(streamId: 42, uploadId: issued.uploadId, token: other), status: 403, code: "forbidden")
        expectError(
            try api.commit(streamId: 42, uploadId: issued.uploadId, token: viewer), status: 403, code: "forbidden")
        #expect(try api.postJSON("/api/preview/post", #"{"streamId":"42"}"#, token: admin).status == 200)
        #expect(try api.feedItems().isEmpty)
    }

    @Test("Validation comes before ownership: a bad streamId is 400 even for a token that does not own it")
    func validationBeforeOwnership() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let other = try service.token(sub: "oli", role: "streamer", streams: [43])
        let viewer = try service.token(sub: "ann", role: "viewer")
        for token in [other, viewer] {
            expectError(
                try api.postJSON("/api/preview/post", #"{"streamId":"abc"}"#, token: token), status: 400,
                code: "invalid_argument", target: "streamId")
            expectError(
                try api.postJSON(
                    "/api/preview/post", #"{"streamId":"42","movieContentType":"video/avi"}"#, token: token),
                status: 400, code: "invalid_argument", target: "movieContentType")
        }
    }
}

import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `POST /api/preview/post` with `maxPendingUploads`, through the router with a clock the test moves.
@Suite struct PendingUploadRouteTests {
    @Test func theNextUploadIs429WithRetryAfterUntilTheOldestPassesItsCommitDeadline() throws {
        var policy = UploadPolicy()
        policy.maxPendingUploads = 2
        let app = try AppHarness(policy: policy)
        let token = app.token("sam", .streamer, streams: [42])
        #expect(app.requestUpload(stream: 42, token: token).status == 200)
        app.advance(seconds: 100)
        #expect(app.requestUpload(stream: 42, token: token).status == 200)
        app.advance(seconds: 50)

        // The first upload is committable for 900 + 300 s after it was issued, 150 s ago.
        let refused = app.requestUpload(stream: 42, token: token)
        #expect(refused.status == 429)
        #expect(refused.errorCode == "too_many_pending_uploads")
        #expect(refused.headers["Retry-After"] == "1051")
        #expect(app.requestUpload(stream: 43, token: app.token("oli", .streamer, streams: [43])).status == 200)

        app.advance(seconds: 1050)
        #expect(app.requestUpload(stream: 42, token: token).headers["Retry-After"] == "1")
        app.advance(seconds: 1)
        #expect(app.requestUpload(stream: 42, token: token).status == 200, "the oldest no longer counts")
        let refusedAgain = app.requestUpload(stream: 42, token: token)
        #expect(refusedAgain.status == 429)
        #expect(refusedAgain.headers["Retry-After"] == "100", "now the second one is the oldest")
    }

    @Test func committingAnUploadFreesItsPlace() throws {
        var policy = UploadPolicy()
        policy.maxPendingUploads = 1
        let app = try AppHarness(policy: policy)
        let token = app.token("sam", .streamer, streams: [42])
        try app.publish(stream: 42)
        let issued = try app.upload(stream: 42, token: token, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        #expect(app.requestUpload(stream: 42, token: token).status == 429)
        let committed = app.send(
            "POST", "/api/preview/commit", token: token,
            json: #"{"streamId":"42","uploadId":"\#(issued.uploadId)"}"#)
        #expect(committed.status == 200)
        #expect(app.requestUpload(stream: 42, token: token).status == 200)
    }
}

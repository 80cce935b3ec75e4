import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `--max-retained-bytes-per-stream` and `-per-subject` on `POST /api/preview/post`, through the
/// router with a clock the test moves.
@Suite struct RetainedBytesRouteTests {
    @Test func anUploadOverTheStreamsLimitIs429WithRetryAfterUntilItsOldestObjectStopsCounting() throws {
        var policy = UploadPolicy()
        policy.maxRetainedBytesPerStream = 250
        let app = try AppHarness(policy: policy)
        let token = app.token("sam", .streamer, streams: [42, 43])
        #expect(app.requestUpload(stream: 42, token: token).status == 200)
        app.advance(seconds: 100)
        #expect(app.requestUpload(stream: 42, token: token).status == 200)
        #expect(try app.context.store.retainedBytes(streamId: 42, now: app.now) == 220)

        // Uncommitted objects count until the commit deadline + 1: 900 + 300 + 1 s after issue.
        let refused = app.requestUpload(stream: 42, token: token)
        #expect(refused.status == 429)
        #expect(refused.errorCode == "storage_quota_exceeded", "\(refused.text)")
        #expect(refused.headers["Retry-After"] == "1101")
        #expect(app.requestUpload(stream: 43, token: token).status == 200, "another stream has its own count")

        app.advance(seconds: 1101)
        #expect(app.requestUpload(stream: 42, token: token).status == 200, "the oldest upload no longer counts")
        #expect(try app.context.store.retainedBytes(streamId: 42, now: app.now) == 220)
    }

    @Test func replacedObjectsCountUntilTheirGraceEnds() throws {
        let perUpload = Int64(TestClips.mp4.count + TestClips.jpeg.count)
        var policy = UploadPolicy()
        policy.maxRetainedBytesPerStream = 3 * perUpload
        let app = try AppHarness(policy: policy)
        for _ in 0..<3 { try app.publish(stream: 42) }
        #expect(try app.context.store.retainedBytes(streamId: 42, now: app.now) == 3 * perUpload)

        let token = app.token("streamer-42", .streamer, streams: [42])
        let refused = app.requestUpload(stream: 42, token: token)
        #expect(refused.status == 429 && refused.errorCode == "storage_quota_exceeded", "\(refused.text)")
        #expect(refused.headers["Retry-After"] == String(app.context.graceSeconds))
        app.advance(seconds: app.context.graceSeconds - 1)
        #expect(app.requestUpload(stream: 42, token: token).headers["Retry-After"] == "1")
        app.advance(seconds: 1)
        #expect(app.requestUpload(stream: 42, token: token).status == 200, "the replaced objects' grace has ended")
    }

    @Test func aSubjectIsBoundedOverAllItsStreamsAndAStreamRefusalGivesItsCountBack() throws {
        var policy = UploadPolicy()
        policy.maxRetainedBytesPerSubject = 250
        policy.maxRetainedBytesPerStream = 120
        let app = try AppHarness(policy: policy)
        let token = app.token("sam", .streamer, streams: [41, 42, 43])
        #expect(app.requestUpload(stream: 41, token: token).status == 200)
        let byStream = app.requestUpload(stream: 41, token: token)
        #expect(byStream.status == 429 && byStream.errorCode == "storage_quota_exceeded", "\(byStream.text)")
        #expect(try app.context.store.retainedBytes(subject: "sam", now: app.now) == 110)
        #expect(app.requestUpload(stream: 42, token: token).status == 200)

        let bySubject = app.requestUpload(stream: 43, token: token)
        #expect(bySubject.status == 429 && bySubject.errorCode == "storage_quota_exceeded", "\(bySubject.text)")
        #expect(bySubject.headers["Retry-After"] == "1201")
        #expect(try app.context.store.retainedBytes(streamId: 43, now: app.now) == 0, "nothing counted on 43")
        #expect(app.requestUpload(stream: 43, token: app.token("oli", .streamer, streams: [43])).status == 200)
    }
}

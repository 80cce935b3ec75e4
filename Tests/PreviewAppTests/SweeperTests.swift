import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The sweeper against a real Redis and the real local store, with a clock the test moves:
/// it removes what nobody can use and never an object still in use.
@Suite struct SweeperTests {
    @Test func anExpiredPreviewLeavesTheFeedAndItsObjectsGoAfterTheGracePeriod() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 42)
        #expect(try app.feed().map(\.streamId) == [42])

        app.advance(seconds: 601)
        #expect(try app.feed().isEmpty, "an expired preview is not served even before the sweep")
        let report = try app.sweep()
        #expect(report.previewsRemoved == 1)
        #expect(try app.objectExists(item.movieUrl), "viewers may still play it during the grace period")

        app.advance(seconds: 3601)
        try app.sweep()
        #expect(try !app.objectExists(item.movieUrl))
        #expect(try !app.objectExists(item.thumbnailUrl))
    }

    @Test func aReplacedPreviewsObjectsSurviveTheGracePeriodAndTheLiveOnesAreNeverDeleted() throws {
        let app = try AppHarness()
        let first = try app.publish(stream: 7)
        app.advance(seconds: 10)
        let second = try app.publish(stream: 7)
        #expect(second.previewVersion == first.previewVersion + 1)

        // Sweep repeatedly across the grace period while the second preview stays live.
        for _ in 0..<8 {
            app.advance(seconds: 59)
            try app.sweep()
            #expect(try app.objectExists(second.movieUrl) && app.objectExists(second.thumbnailUrl))
        }
        #expect(try app.objectExists(first.movieUrl), "still inside the grace period")
        app.advance(seconds: 3600)
        try app.sweep()
        try app.sweep()
        #expect(try !app.objectExists(first.movieUrl) && !app.objectExists(first.thumbnailUrl))
    }

    @Test func anAbandonedUploadIsCollectedOnlyAfterItCanNoLongerBeCommitted() throws {
        let app = try AppHarness()
        let streamer = app.token("s", .streamer, streams: [5])
        let issued = try app.upload(stream: 5, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        app.advance(seconds: 900)  // URLs expired, the commit window still open
        try app.sweep()
        #expect(try app.objectExists(issued.movieBodyUrl))
        let commit = app.send(
            "POST", "/api/preview/commit", token: streamer, json: #"{"streamId":"5","uploadId":"\#(issued.uploadId)"}"#)
        #expect(commit.status == 200, "a late commit within the window works: \(commit.text)")
        app.advance(seconds: 400)
        try app.sweep()
        #expect(try app.objectExists(issued.movieBodyUrl), "committed objects are live, never collected")

        // A second upload that is never committed goes once its window has passed.
        let abandoned = try app.upload(stream: 5, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        app.advance(seconds: 1201)
        try app.sweep()
        #expect(try !app.objectExists(abandoned.movieBodyUrl) && !app.objectExists(abandoned.movieThumbnailBodyUrl))
    }

    @Test func theSweeperDoesNotRemoveAPreviewRecommittedAfterItLookedAtTheIndex() throws {
        let app = try AppHarness()
        try app.publish(stream: 3)
        app.advance(seconds: 601)
        let candidates = try app.context.store.expiredStreams(now: app.now, limit: 10)
        #expect(candidates == [3])
        // A fresh commit lands between the sweeper's index read and its removal.
        let fresh = try app.publish(stream: 3)
        let removed = try app.context.store.retire(
            streamId: 3, retireUntil: app.now + 3600, keepAfterEnd: 3600, now: app.now, onlyIfExpiredAt: app.now)
        #expect(removed == nil)
        #expect(try app.feed().map(\.previewVersion) == [fresh.previewVersion])
    }

    @Test func endingAStreamRemovesItFromTheFeedAtOnce() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 9)
        let owner = app.token("streamer-9", .streamer, streams: [9])
        #expect(app.send("DELETE", "/api/preview/9", token: app.token("v", .viewer)).status == 403)
        #expect(app.send("DELETE", "/api/preview/9", token: owner).status == 204)
        #expect(try app.feed().isEmpty)
        #expect(app.send("DELETE", "/api/preview/9", token: app.token("root", .admin)).status == 204)
        #expect(try app.objectExists(item.movieUrl))
        app.advance(seconds: 3601)
        try app.sweep()
        #expect(try !app.objectExists(item.movieUrl))
    }
}

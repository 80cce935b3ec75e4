import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Commit idempotency, retries and replacement; feed ETags and shared GET URLs.
@Suite("Commits and feed caching")
struct CommitAndCacheTests {
    @Test("The feed carries an ETag, answers 304 to If-None-Match, and changes its ETag after a like")
    func etag() throws {
        let stream = try PublishedStream()
        let (api, viewer) = (stream.api, stream.ann)

        let first = try api.feed(token: viewer)
        let etag = try #require(first.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\""))
        let again = try api.feed(token: viewer)
        #expect(again.headers["ETag"] == etag)
        #expect(
            try again.json(FeedResponse.self).items.map(\.movieUrl)
                == first.json(FeedResponse.self).items.map(\.movieUrl),
            "every read in a window gets the same GET URL")

        let notModified = try api.feed(token: viewer, headers: [("If-None-Match", etag)])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.headers["ETag"] == etag)
        #expect(try api.feed(token: viewer, headers: [("If-None-Match", "\"other\"")]).status == 200)

        #expect(try api.send("POST", "/api/streams/42/like", token: viewer).status == 200)
        let afterLike = try api.feed(token: viewer, headers: [("If-None-Match", etag)])
        #expect(afterLike.status == 200)
        let newTag = try #require(afterLike.headers["ETag"])
        #expect(newTag != etag)
        #expect(try afterLike.json(FeedResponse.self).items.first?.likes == 1)
    }

    @Test("Committing the same upload twice returns the same item without a new version")
    func commitIsIdempotent() throws {
        let upload = try IssuedUpload()
        try upload.putBoth()
        let first = try upload.commit()
        let second = try upload.commit()
        try #require(first.status == 200 && second.status == 200, "\(first.text) \(second.text)")
        let (a, b) = (try first.json(FeedItem.self), try second.json(FeedItem.self))
        #expect(a.previewVersion == 1 && b.previewVersion == 1)
        #expect(a.updatedAt == b.updatedAt && a.movieUrl == b.movieUrl)
        #expect(try upload.api.feedItems().count == 1)
    }

    @Test("A commit refused for a missing thumbnail succeeds when retried after the PUT")
    func failedCommitCanBeRetried() throws {
        let upload = try IssuedUpload()

        expectError(try upload.commit(), status: 409, code: "object_missing", target: "movie")
        #expect(try upload.putMovie().status == 200)
        expectError(try upload.commit(), status: 409, code: "object_missing", target: "thumbnail")
        #expect(try upload.api.feedItems().isEmpty, "nothing is published by a refused commit")

        #expect(try upload.putThumbnail().status == 200)
        let retried = try upload.commit()
        try #require(retried.status == 200, "\(retried.text)")
        #expect(try retried.json(FeedItem.self).previewVersion == 1)
        #expect(try upload.api.feedItems().map(\.streamId) == [42])
    }

    @Test("A preview leaves the feed when --preview-ttl has passed, and likes or re-commits of it are refused")
    func previewExpires() throws {
        let upload = try IssuedUpload(serviceArguments: ["--preview-ttl", "1"], testClock: true)
        let (api, token) = (upload.api, upload.token)
        try upload.putBoth()
        let committed = try upload.commit()
        try #require(committed.status == 200, "\(committed.text)")
        let item = try committed.json(FeedItem.self)
        #expect(item.expiresAt == item.updatedAt + 1)
        try upload.service.shiftClock(by: item.expiresAt - item.updatedAt + 2)  // past expiresAt, without waiting
        #expect(try api.feedItems().isEmpty)
        expectError(try api.send("POST", "/api/streams/42/like", token: token), status: 404, code: "stream_not_live")
        let again = try upload.commit()
        #expect(again.status == 409, "an expired preview is not brought back by re-committing: \(again.text)")
        #expect(try api.feedItems().isEmpty)
    }

    @Test("A second upload replaces the first as version 2 while the old clip URL keeps working")
    func replacementKeepsOldObjectsForAGracePeriod() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let oldMovie = TestMedia.mp4(size: 3000, seed: 1)
        let newMovie = TestMedia.mp4(size: 3500, seed: 2)
        let old = try api.publish(streamId: 42, token: token, movie: oldMovie)
        let new = try api.publish(streamId: 42, token: token, movie: newMovie)
        #expect(old.previewVersion == 1 && new.previewVersion == 2)
        #expect(old.movieUrl != new.movieUrl)
        let items = try api.feedItems()
        #expect(items.count == 1)
        #expect(items.first?.previewVersion == 2)
        #expect(try api.send("GET", new.movieUrl).body == newMovie)
        let stale = try api.send("GET", old.movieUrl)
        #expect(stale.status == 200)
        #expect(stale.body == oldMovie)
    }
}

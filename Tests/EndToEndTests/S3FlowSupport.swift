import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `streampreview serve --storage s3` against an S3 server on loopback, with the flow helpers the moto
/// and LocalStack suites share.
struct S3Flow {
    let endpoint: S3TestEndpoint
    let bucket: String
    let service: ServiceProcess
    let api: APIClient

    init(endpoint: S3TestEndpoint, bucketPrefix: String, extraArguments: [String] = [], testClock: Bool = false) throws
    {
        self.endpoint = endpoint
        bucket = S3TestEndpoint.uniqueBucket(bucketPrefix)
        try endpoint.createBucket(bucket)
        service = try ServiceProcess(
            arguments: [
                "--storage", "s3", "--endpoint", endpoint.url, "--bucket", bucket, "--addressing", "path",
                "--region", S3TestEndpoint.region, "--sweep-interval", "0",
            ] + extraArguments,
            environment: S3TestEndpoint.credentialEnvironment, testClock: testClock)
        api = try APIClient(service)
    }

    /// post → PUT both to the bucket with the signed URLs → commit → feed → GET of both URLs, each
    /// checked; returns the feed item.
    @discardableResult
    func publishAndPlay(streamId: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws -> FeedItem {
        let token = try service.token(sub: "s3-\(streamId)", role: "streamer", streams: [streamId])
        let movie = TestMedia.mp4(size: 5000, seed: UInt8(truncatingIfNeeded: streamId))
        let thumbnail = TestMedia.jpeg(size: 700)
        let issued = try api.issue(streamId: streamId, movie: movie, thumbnail: thumbnail, token: token)
        try #require(issued.movieBodyUrl.hasPrefix("\(endpoint.url)/\(bucket)/"), sourceLocation: sourceLocation)
        let moviePut = try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        try #require(
            moviePut.status == 200, "movie PUT \(moviePut.status): \(moviePut.text)", sourceLocation: sourceLocation)
        let thumbPut = try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail)
        try #require(
            thumbPut.status == 200, "thumbnail PUT \(thumbPut.status): \(thumbPut.text)", sourceLocation: sourceLocation
        )

        let committed = try api.commit(streamId: streamId, uploadId: issued.uploadId, token: token)
        try #require(
            committed.status == 200, "commit \(committed.status): \(committed.text)", sourceLocation: sourceLocation)
        let item = try #require(
            try api.feedItems().first { $0.streamId == streamId }, "stream in the feed", sourceLocation: sourceLocation)
        #expect(item.movieUrl.hasPrefix("\(endpoint.url)/\(bucket)/"), sourceLocation: sourceLocation)
        #expect(item.movieUrl.contains("X-Amz-Signature="), sourceLocation: sourceLocation)
        let played = try api.send("GET", item.movieUrl)
        #expect(played.status == 200, "GET movie \(played.status): \(played.text)", sourceLocation: sourceLocation)
        #expect(played.body == movie, sourceLocation: sourceLocation)
        // The download link: the same bytes, saved under a name, its disposition signed with it.
        let saved = try api.send("GET", item.downloadUrl)
        #expect(
            saved.status == 200 && saved.body == movie, "GET download \(saved.status)", sourceLocation: sourceLocation)
        #expect(
            saved.headers["Content-Disposition"]
                == #"attachment; filename="stream-\#(streamId)-v\#(item.previewVersion).mp4""#,
            sourceLocation: sourceLocation)
        #expect(played.headers["Content-Disposition"] == nil, sourceLocation: sourceLocation)
        let ranged = try api.send("GET", item.movieUrl, headers: [("Range", "bytes=4-7")])
        #expect(ranged.status == 206 && ranged.text == "ftyp", sourceLocation: sourceLocation)
        let shown = try api.send("GET", item.thumbnailUrl)
        #expect(shown.status == 200 && shown.body == thumbnail, sourceLocation: sourceLocation)
        // No local object store in s3 mode.
        #expect(try api.send("GET", "/objects/anything").status == 404, sourceLocation: sourceLocation)
        return item
    }

    /// Upload URLs sign `If-None-Match: *`: post → PUT both → the same PUT again with other bytes of the
    /// signed length (412 PreconditionFailed) → commit → again (412) → the feed serves the first bytes.
    func writeOnceUpload(streamId: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let token = try service.token(sub: "s3-\(streamId)", role: "streamer", streams: [streamId])
        let movie = TestMedia.mp4(size: 3000, seed: 4)
        let thumbnail = TestMedia.jpeg(size: 600)
        let issued = try api.issue(streamId: streamId, movie: movie, thumbnail: thumbnail, token: token)
        #expect(issued.movieHeaders["If-None-Match"] == "*", sourceLocation: sourceLocation)
        #expect(issued.thumbnailHeaders["If-None-Match"] == "*", sourceLocation: sourceLocation)
        try api.putBoth(issued, movie: movie, thumbnail: thumbnail, sourceLocation: sourceLocation)

        let swapped = TestMedia.junk(size: movie.count)
        let before = try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: swapped)
        #expect(before.status == 412, "second PUT: \(before.status) \(before.text)", sourceLocation: sourceLocation)
        #expect(before.text.contains("PreconditionFailed"), "\(before.text)", sourceLocation: sourceLocation)

        let committed = try api.commit(streamId: streamId, uploadId: issued.uploadId, token: token)
        try #require(
            committed.status == 200, "commit \(committed.status): \(committed.text)", sourceLocation: sourceLocation)
        let after = try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: swapped)
        #expect(after.status == 412, "PUT after commit: \(after.status) \(after.text)", sourceLocation: sourceLocation)
        let thumbnailAfter = try api.put(
            issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: TestMedia.junk(size: thumbnail.count))
        #expect(thumbnailAfter.status == 412, "thumbnail PUT after commit", sourceLocation: sourceLocation)

        let item = try #require(
            try api.feedItems().first { $0.streamId == streamId }, "stream in the feed", sourceLocation: sourceLocation)
        #expect(try api.send("GET", item.movieUrl).body == movie, sourceLocation: sourceLocation)
        #expect(try api.send("GET", item.thumbnailUrl).body == thumbnail, sourceLocation: sourceLocation)
    }
}

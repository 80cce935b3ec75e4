import PreviewCore
import PreviewTestSupport
import Testing

/// `--max-pending-uploads`: uploads issued and not committed, per stream.
@Suite("Pending upload limit, end to end")
struct PendingUploadLimitEndToEndTests {
    @Test(
        "The upload after --max-pending-uploads is 429 too_many_pending_uploads with Retry-After; a commit frees a place"
    )
    func limit() throws {
        let service = try ServiceProcess(arguments: ["--max-pending-uploads", "2"])
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42, 43])
        let movie = TestMedia.mp4(), thumbnail = TestMedia.jpeg()
        let first = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)
        _ = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)

        let body = StreamPreviewPostRequest(
            streamId: 42, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
            movieContentType: "video/mp4", thumbnailContentType: "image/jpeg")
        let refused = try api.requestUpload(body, token: token)
        expectError(refused, status: 429, code: "too_many_pending_uploads", target: "streamId")
        let retryAfter = try #require(refused.headers["Retry-After"].flatMap { Int($0) })
        #expect((1...1201).contains(retryAfter), "900 s URLs + 300 s commit window: \(retryAfter)")
        _ = try api.issue(streamId: 43, movie: movie, thumbnail: thumbnail, token: token)

        try api.putBoth(first, movie: movie, thumbnail: thumbnail)
        #expect(try api.commit(streamId: 42, uploadId: first.uploadId, token: token).status == 200)
        _ = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)
        expectError(try api.requestUpload(body, token: token), status: 429, code: "too_many_pending_uploads")
    }
}

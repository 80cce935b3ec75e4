import PreviewCore
import PreviewTestSupport
import Testing

/// The same routes in `application/x-protobuf`, and the original one-field client.
@Suite("Upload, commit and play in protobuf")
struct ProtobufTests {
    static let protobuf = "application/x-protobuf"
    static let protobufHeaders = [("Content-Type", protobuf), ("Accept", protobuf)]

    @Test("A protobuf client posts, commits and reads the feed with the proto message types")
    func fullFlowInProtobuf() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42])
        let movie = TestMedia.mp4(size: 4000)
        let thumbnail = TestMedia.jpeg(size: 600)

        let request = StreamPreviewPostRequest(
            streamId: 42, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
            movieContentType: "video/mp4", thumbnailContentType: "image/jpeg")
        let posted = try api.send(
            "POST", "/api/preview/post", headers: Self.protobufHeaders, body: request.protobufBytes(), token: token)
        try #require(posted.status == 200, "\(posted.text)")
        #expect(posted.headers["Content-Type"] == Self.protobuf)
        let issued = try posted.protobuf(StreamPreviewPostResponse.self)
        #expect(issued.uploadId.count == 32)
        #expect(issued.movieHeaders == ["Content-Type": "video/mp4", "Content-Length": String(movie.count)])
        try api.putBoth(issued, movie: movie, thumbnail: thumbnail)

        let committed = try api.send(
            "POST", "/api/preview/commit", headers: Self.protobufHeaders,
            body: StreamPreviewCommitRequest(streamId: 42, uploadId: issued.uploadId).protobufBytes(), token: token)
        try #require(committed.status == 200, "\(committed.text)")
        #expect(committed.headers["Content-Type"] == Self.protobuf)
        let item = try committed.protobuf(FeedItem.self)
        #expect(item.streamId == 42 && item.previewVersion == 1 && item.likes == 0)
        #expect(item.expiresAt == item.updatedAt + 600)

        let feed = try api.send("GET", "/api/feed", headers: [("Accept", Self.protobuf)], token: token)
        try #require(feed.status == 200)
        #expect(feed.headers["Content-Type"] == Self.protobuf)
        #expect(try feed.protobuf(FeedResponse.self).items == [item])
        #expect(try api.send("GET", item.movieUrl).body == movie)

        let liked = try api.send(
            "POST", "/api/streams/42/like", headers: [("Accept", Self.protobuf)], token: token)
        #expect(try liked.protobuf(LikeResponse.self) == LikeResponse(likes: 1, liked: true))
    }

    @Test("Errors come back as a protobuf ErrorResponse to a protobuf client")
    func errorsInProtobuf() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42])
        let invalid = try api.send(
            "POST", "/api/preview/post", headers: Self.protobufHeaders,
            body: StreamPreviewPostRequest(streamId: -1).protobufBytes(), token: token)
        #expect(invalid.headers["Content-Type"] == Self.protobuf)
        expectError(invalid, status: 400, code: "invalid_argument", target: "streamId", protobuf: true)

        let anonymous = try api.send(
            "POST", "/api/preview/post", headers: Self.protobufHeaders,
            body: StreamPreviewPostRequest(streamId: 42).protobufBytes())
        expectError(anonymous, status: 401, code: "unauthenticated", protobuf: true)

        let unknown = try api.send(
            "POST", "/api/preview/commit", headers: Self.protobufHeaders,
            body: StreamPreviewCommitRequest(streamId: 42, uploadId: String(repeating: "ab", count: 16))
                .protobufBytes(),
            token: token)
        expectError(unknown, status: 409, code: "upload_not_found", target: "uploadId", protobuf: true)

        let truncated = try api.send(
            "POST", "/api/preview/post", headers: Self.protobufHeaders, body: [0x08], token: token)
        expectError(truncated, status: 400, code: "invalid_argument", protobuf: true)
    }

    @Test("The original client sending only streamId gets two PUT URLs, and commit checks the real sizes")
    func originalMinimalClient() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42])
        // The original StreamPreviewPostRequest { int64 streamId = 1; } with streamId 42, byte for byte.
        let posted = try api.send(
            "POST", "/api/preview/post", headers: [("Content-Type", Self.protobuf)], body: [0x08, 42], token: token)
        try #require(posted.status == 200, "\(posted.text)")
        #expect(posted.headers["Content-Type"] == Self.protobuf, "the response format follows the request's")
        let issued = try posted.protobuf(StreamPreviewPostResponse.self)
        #expect(!issued.movieBodyUrl.isEmpty && !issued.movieThumbnailBodyUrl.isEmpty)
        #expect(issued.movieHeaders == ["Content-Type": "video/mp4"])
        #expect(issued.thumbnailHeaders == ["Content-Type": "image/jpeg"])
        #expect(queryValue(issued.movieBodyUrl, name: "x-sp-max-bytes") == "10485760")
        #expect(queryValue(issued.movieThumbnailBodyUrl, name: "x-sp-max-bytes") == "1048576")

        let movie = TestMedia.mp4(size: 7777)
        #expect(try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie).status == 200)
        // An empty thumbnail is refused on its PUT's head, so commit finds no thumbnail.
        expectError(
            try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: []), status: 400,
            code: "invalid_argument", target: "Content-Length")
        let refused = try api.send(
            "POST", "/api/preview/commit", headers: [("Content-Type", Self.protobuf)],
            body: StreamPreviewCommitRequest(streamId: 42, uploadId: issued.uploadId).protobufBytes(), token: token)
        expectError(refused, status: 409, code: "object_missing", target: "thumbnail", protobuf: true)
        #expect(try api.feedItems().isEmpty)

        // The client starts a new upload.
        let thumbnail = TestMedia.jpeg(size: 333)
        let again = try api.send(
            "POST", "/api/preview/post", headers: [("Content-Type", Self.protobuf)], body: [0x08, 42], token: token)
        try #require(again.status == 200, "\(again.text)")
        let retry = try again.protobuf(StreamPreviewPostResponse.self)
        #expect(try api.put(retry.movieBodyUrl, headers: retry.movieHeaders, body: movie).status == 200)
        #expect(
            try api.put(retry.movieThumbnailBodyUrl, headers: retry.thumbnailHeaders, body: thumbnail).status == 200)
        let committed = try api.send(
            "POST", "/api/preview/commit", headers: [("Content-Type", Self.protobuf)],
            body: StreamPreviewCommitRequest(streamId: 42, uploadId: retry.uploadId).protobufBytes(), token: token)
        try #require(committed.status == 200, "\(committed.text)")
        let item = try committed.protobuf(FeedItem.self)
        #expect(try api.send("GET", item.movieUrl).body == movie)
        #expect(try api.send("GET", item.thumbnailUrl).body == thumbnail)
    }
}

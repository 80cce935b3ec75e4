import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// The uploader and viewer flow in JSON against the built binary, each test with its own server.
@Suite("Upload, commit and play in JSON")
struct HappyPathTests {
    @Test("A streamer gets signed URLs, uploads both objects, commits, and the feed serves the exact bytes")
    func fullFlowInJSON() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42])
        let movie = TestMedia.mp4(size: 5000)
        let thumbnail = TestMedia.jpeg(size: 700)

        let before = unixNow()
        let posted = try api.postJSON(
            "/api/preview/post",
            #"{"streamId":"42","movieBytes":\#(movie.count),"thumbnailBytes":\#(thumbnail.count),"#
                + #""movieContentType":"video/mp4","thumbnailContentType":"image/jpeg"}"#,
            token: token)
        try #require(posted.status == 200, "\(posted.text)")
        #expect(posted.headers["Content-Type"] == "application/json")
        #expect(posted.headers["X-Request-Id"].map { $0.count == 16 && $0.allSatisfy(\.isHexDigit) } == true)
        let issued = try posted.json(StreamPreviewPostResponse.self)
        #expect(issued.movieBodyUrl.hasPrefix(service.baseURL + "/objects/"))
        #expect(issued.movieThumbnailBodyUrl.hasPrefix(service.baseURL + "/objects/"))
        #expect(issued.movieBodyUrl != issued.movieThumbnailBodyUrl)
        #expect(issued.uploadId.count == 32 && issued.uploadId.allSatisfy(\.isHexDigit))
        #expect(abs(issued.expiresAt - (before + 900)) <= 5)
        #expect(posted.text.contains(#""expiresAt":"\#(issued.expiresAt)""#), "int64 as a string on output")
        #expect(issued.movieHeaders == ["Content-Type": "video/mp4", "Content-Length": String(movie.count)])
        #expect(issued.thumbnailHeaders == ["Content-Type": "image/jpeg", "Content-Length": String(thumbnail.count)])

        try api.putBoth(issued, movie: movie, thumbnail: thumbnail)

        let committed = try api.postJSON(
            "/api/preview/commit", #"{"streamId":"42","uploadId":"\#(issued.uploadId)"}"#, token: token)
        try #require(committed.status == 200, "\(committed.text)")
        let item = try committed.json(FeedItem.self)
        #expect(item.streamId == 42)
        #expect(item.previewVersion == 1)
        #expect(item.likes == 0 && !item.seen && !item.liked)
        #expect(abs(item.updatedAt - unixNow()) <= 5)
        #expect(item.expiresAt == item.updatedAt + 600)
        // What commit read from the clip's boxes (TestMedia.mp4: 10 s, 640x360, moov before mdat).
        #expect(item.durationMs == 10_000 && item.width == 640 && item.height == 360 && item.fastStart)
        // proto3 JSON: int64 as strings, defaults always written.
        for fragment in [
            #""streamId":"42""#, #""previewVersion":"1""#, #""likes":"0""#, #""seen":false"#, #""liked":false"#,
        ] {
            #expect(committed.text.contains(fragment), "\(committed.text)")
        }

        let feed = try api.feed(token: token)
        try #require(feed.status == 200)
        #expect(feed.headers["Content-Type"] == "application/json")
        let items = try feed.json(FeedResponse.self).items
        #expect(items == [item])

        let whole = try api.send("GET", item.movieUrl)
        #expect(whole.status == 200)
        #expect(whole.body == movie)
        #expect(whole.headers["Content-Type"] == "video/mp4")
        #expect(whole.headers["Accept-Ranges"] == "bytes")
        #expect(whole.headers["Content-Length"] == String(movie.count))

        let range = try api.send("GET", item.movieUrl, headers: [("Range", "bytes=10-19")])
        #expect(range.status == 206)
        #expect(range.body == Array(movie[10..<20]))
        #expect(range.headers["Content-Range"] == "bytes 10-19/\(movie.count)")

        let suffix = try api.send("GET", item.movieUrl, headers: [("Range", "bytes=-5")])
        #expect(suffix.status == 206)
        #expect(suffix.body == Array(movie.suffix(5)))
        #expect(suffix.headers["Content-Range"] == "bytes \(movie.count - 5)-\(movie.count - 1)/\(movie.count)")

        let beyond = try api.send("GET", item.movieUrl, headers: [("Range", "bytes=\(movie.count + 10)-")])
        #expect(beyond.status == 416)
        #expect(beyond.headers["Content-Range"] == "bytes */\(movie.count)")

        let thumb = try api.send("GET", item.thumbnailUrl)
        #expect(thumb.status == 200)
        #expect(thumb.body == thumbnail)
        #expect(thumb.headers["Content-Type"] == "image/jpeg")
    }

    @Test("Int64 fields are accepted as JSON numbers as well as strings")
    func numbersAcceptedOnInput() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42])
        let posted = try api.postJSON("/api/preview/post", #"{"streamId":42,"movieBytes":100}"#, token: token)
        try #require(posted.status == 200, "\(posted.text)")
        let issued = try posted.json(StreamPreviewPostResponse.self)
        #expect(issued.movieHeaders["Content-Length"] == "100")
        // Missing types default to video/mp4 and image/jpeg.
        #expect(issued.movieHeaders["Content-Type"] == "video/mp4")
        #expect(issued.thumbnailHeaders == ["Content-Type": "image/jpeg"])
    }

    @Test("PNG and WebP thumbnails and QuickTime clips are accepted and served, and shared, with their types")
    func otherMediaTypes() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [7, 8])
        for (stream, thumbnail, type) in [
            (Int64(7), TestMedia.png(), "image/png"), (8, TestMedia.webp(), "image/webp"),
        ] {
            let movie = TestMedia.mp4(size: 3000, seed: UInt8(stream))
            let issued = try api.issue(
                streamId: stream, movie: movie, thumbnail: thumbnail, movieType: "video/quicktime",
                thumbnailType: type, token: token)
            try api.putBoth(issued, movie: movie, thumbnail: thumbnail)
            let committed = try api.commit(streamId: stream, uploadId: issued.uploadId, token: token)
            try #require(committed.status == 200, "\(committed.text)")
            let item = try committed.json(FeedItem.self)
            let served = try api.send("GET", item.thumbnailUrl)
            #expect(served.body == thumbnail)
            #expect(served.headers["Content-Type"] == type)
            #expect(try api.send("GET", item.movieUrl).headers["Content-Type"] == "video/quicktime")
            // The share page announces the clip's own type to link previewers.
            let page = try api.send("GET", "/s/\(stream)", headers: [("Accept", "text/html")])
            #expect(page.text.contains(#"<meta property="og:video:type" content="video/quicktime">"#))
        }
    }

    @Test("streampreview upload posts, PUTs and commits a clip, prints the item, and the feed shows it")
    func uploadCommand() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let token = try service.token(sub: "alice", role: "streamer", streams: [42, 43])
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-files")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let movie = TestMedia.mp4(size: 6000, seed: 3)
        let thumbnail = TestMedia.jpeg(size: 900, seed: 3)
        try Data(movie).write(to: URL(fileURLWithPath: folder + "/clip.mp4"))
        try Data(thumbnail).write(to: URL(fileURLWithPath: folder + "/thumb.jpg"))

        let result = try service.run([
            "upload", "--server", service.baseURL, "--token", token, "--stream", "42",
            folder + "/clip.mp4", folder + "/thumb.jpg",
        ])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let printed = try FeedItem(json: Array(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines).utf8))
        #expect(printed.streamId == 42 && printed.previewVersion == 1)
        let items = try api.feedItems(token: token)
        #expect(items.map(\.streamId) == [42])
        #expect(items.first?.updatedAt == printed.updatedAt)
        #expect(try api.send("GET", items[0].movieUrl).body == movie)

        let viaProtobuf = try service.run([
            "upload", "--server", service.baseURL, "--token", token, "--stream", "43", "--format", "protobuf",
            folder + "/clip.mp4", folder + "/thumb.jpg",
        ])
        #expect(viaProtobuf.status == 0, "stderr: \(viaProtobuf.stderr)")
        #expect(try api.feedItems(token: token).map(\.streamId).sorted() == [42, 43])

        let refused = try service.run([
            "upload", "--server", service.baseURL, "--token", token, "--stream", "99",
            folder + "/clip.mp4", folder + "/thumb.jpg",
        ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("forbidden"), "stderr: \(refused.stderr)")
    }
}

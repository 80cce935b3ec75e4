import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Retained bytes per stream and the local store's free-disk floor, against the built binary.
@Suite("Storage quotas, end to end")
struct StorageQuotaTests {
    @Test("An upload request over --max-retained-bytes-per-stream is 429 storage_quota_exceeded with Retry-After")
    func streamQuota() throws {
        let movie = TestMedia.mp4(), thumbnail = TestMedia.jpeg()
        let perUpload = movie.count + thumbnail.count
        let service = try ServiceProcess(arguments: [
            "--max-movie-bytes", String(movie.count), "--max-thumbnail-bytes", String(thumbnail.count),
            "--max-retained-bytes-per-stream", String(2 * perUpload),
        ])
        let api = try APIClient(service)
        let token = try service.token(sub: "sam", role: "streamer", streams: [42, 43])
        _ = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)
        _ = try api.issue(streamId: 42, movie: movie, thumbnail: thumbnail, token: token)
        let refused = try api.requestUpload(
            StreamPreviewPostRequest(
                streamId: 42, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
                movieContentType: "video/mp4", thumbnailContentType: "image/jpeg"),
            token: token)
        expectError(refused, status: 429, code: "storage_quota_exceeded", target: "streamId")
        let retryAfter = try #require(refused.headers["Retry-After"].flatMap { Int($0) })
        #expect((1...1201).contains(retryAfter), "900 s URLs + 300 s commit window + 1: \(retryAfter)")
        _ = try api.issue(streamId: 43, movie: movie, thumbnail: thumbnail, token: token)
    }

    @Test(
        "Under --min-free-disk-bytes, upload requests and object PUTs are 503 insufficient_storage and /readyz says why"
    )
    func diskFloor() throws {
        let service = try ServiceProcess(arguments: ["--min-free-disk-bytes", String(Int64(1) << 60)])
        let api = try APIClient(service)
        let ready = try api.send("GET", "/readyz")
        #expect(ready.status == 503)
        #expect(ready.text.contains("free-space floor"), "\(ready.text)")

        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        let refused = try api.requestUpload(
            StreamPreviewPostRequest(
                streamId: 42, movieBytes: 4096, thumbnailBytes: 100, movieContentType: "video/mp4",
                thumbnailContentType: "image/jpeg"),
            token: token)
        expectError(refused, status: 503, code: "insufficient_storage")
        #expect(refused.headers["Retry-After"] != nil)

        let presigned = try service.run([
            "presign", "--storage", "local", "--endpoint", service.baseURL, "--data-dir", service.dataDirectory,
            "--method", "PUT", "--key", "previews/42/handmade/movie.mp4", "--query", "x-sp-max-bytes=100",
        ])
        try #require(presigned.status == 0, "presign: \(presigned.stderr)")
        let url = presigned.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        expectError(try api.put(url, headers: [:], body: [1, 2, 3]), status: 503, code: "insufficient_storage")
        #expect(try storedObject(service, url: url) == nil)
    }
}

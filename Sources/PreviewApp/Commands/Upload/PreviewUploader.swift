import Foundation
import PreviewCore
import PreviewHTTPClient

/// The uploader's flow over HTTP, shared by `upload` and `capture`: ask for signed URLs, PUT
/// the clip and the thumbnail with the headers the server named, commit. Failed requests are
/// sent again as `UploadRetry` allows; progress and retry notes go to `progress`.
struct PreviewUploader {
    let client: HTTPClient
    let api: APIClient
    /// When to send a request again (`--retries` sets `retry.policy.maxAttempts`).
    var retry = UploadRetry()
    /// Where progress and retry notes go; silent unless the command picks a mode.
    var progress = UploadProgressReporter.silent
    /// The limit of one PUT attempt, connect included.
    var putTimeoutSeconds = 120.0
    /// The waits and clocks of retries (tests make them instant).
    var timing = RetryTiming()

    /// What one publish did: the upload the server issued and the feed item it published.
    struct Published {
        let issued: StreamPreviewPostResponse
        let item: FeedItem
    }

    func publish(streamId: Int64, moviePath: String, thumbnailPath: String) throws -> Published {
        let movieType = try Self.mediaType(of: moviePath, allowed: MediaType.clipTypes)
        let thumbnailType = try Self.mediaType(of: thumbnailPath, allowed: MediaType.imageTypes)
        let issued: StreamPreviewPostResponse = try call(
            "/api/preview/post", as: .post,
            StreamPreviewPostRequest(
                streamId: streamId, movieBytes: try Self.fileSize(moviePath),
                thumbnailBytes: try Self.fileSize(thumbnailPath), movieContentType: movieType.rawValue,
                thumbnailContentType: thumbnailType.rawValue))
        try put(url: issued.movieBodyUrl, headers: issued.movieHeaders, file: moviePath, expiresAt: issued.expiresAt)
        try put(
            url: issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, file: thumbnailPath,
            expiresAt: issued.expiresAt)
        let item: FeedItem = try call(
            "/api/preview/commit", as: .commit,
            StreamPreviewCommitRequest(streamId: streamId, uploadId: issued.uploadId))
        return Published(issued: issued, item: item)
    }

    /// The media type a file's extension names, among `allowed`.
    static func mediaType(of path: String, allowed: [MediaType]) throws -> MediaType {
        let ext = (path as NSString).pathExtension.lowercased()
        let normalized = ext == "jpeg" ? "jpg" : ext
        guard let type = allowed.first(where: { $0.fileExtension == normalized }) else {
            let names = allowed.map { "." + $0.fileExtension }.joined(separator: " ")
            throw AppError("cannot tell the type of \(path): use one of \(names)", exitCode: .usage)
        }
        return type
    }

    static func fileSize(_ path: String) throws -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { throw AppError("cannot read \(path)", exitCode: .usage) }
        return size.int64Value
    }
}

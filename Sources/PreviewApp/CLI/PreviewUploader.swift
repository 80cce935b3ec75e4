import Foundation
import PreviewCore
import PreviewHTTPClient

/// The uploader's flow over HTTP, shared by `upload` and `capture`: ask for signed URLs, PUT
/// the clip and the thumbnail with the headers the server named, commit.
struct PreviewUploader {
    let client: HTTPClient
    let api: APIClient

    /// What one publish did: the upload the server issued and the feed item it published.
    struct Published {
        let issued: StreamPreviewPostResponse
        let item: FeedItem
    }

    func publish(streamId: Int64, moviePath: String, thumbnailPath: String) throws -> Published {
        let movieType = try Self.mediaType(of: moviePath, allowed: MediaType.clipTypes)
        let thumbnailType = try Self.mediaType(of: thumbnailPath, allowed: MediaType.imageTypes)
        let issued: StreamPreviewPostResponse = try api.call(
            "/api/preview/post",
            StreamPreviewPostRequest(
                streamId: streamId, movieBytes: try Self.fileSize(moviePath),
                thumbnailBytes: try Self.fileSize(thumbnailPath), movieContentType: movieType.rawValue,
                thumbnailContentType: thumbnailType.rawValue))
        try put(url: issued.movieBodyUrl, headers: issued.movieHeaders, file: moviePath)
        try put(url: issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, file: thumbnailPath)
        let item: FeedItem = try api.call(
            "/api/preview/commit", StreamPreviewCommitRequest(streamId: streamId, uploadId: issued.uploadId))
        return Published(issued: issued, item: item)
    }

    private func put(url: String, headers: [String: String], file: String) throws {
        var request = HTTPClientRequest(method: "PUT", url: url, body: .file(path: file))
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name, value) }
        request.timeoutSeconds = 120
        let response = try client.send(request)
        guard (200..<300).contains(response.status) else {
            throw AppError("PUT of \(file) failed with \(response.status): \(APIClient.describe(response))")
        }
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

    private static func fileSize(_ path: String) throws -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { throw AppError("cannot read \(path)", exitCode: .usage) }
        return size.int64Value
    }
}

import Foundation
import PreviewCore
import PreviewHTTPClient

/// `streampreview upload`: the whole uploader flow over HTTP with libcurl: ask for URLs,
/// PUT both files with the headers the server named, commit, print the published item.
enum UploadCommand {
    static func run(_ options: UploadOptions) throws -> ExitCode {
        let movieType = try mediaType(of: options.moviePath, allowed: MediaType.clipTypes)
        let thumbnailType = try mediaType(of: options.thumbnailPath, allowed: MediaType.imageTypes)
        let format: WireFormat = options.format == "protobuf" ? .protobuf : .json
        let client = try HTTPClient()
        let token =
            try options.tokenFile.map { String(decoding: try SecretFile.read($0, what: "token file"), as: UTF8.self) }
            ?? options.token
        let api = APIClient(client: client, server: options.server, token: token, format: format)

        let issued: StreamPreviewPostResponse = try api.call(
            "/api/preview/post",
            StreamPreviewPostRequest(
                streamId: options.streamId, movieBytes: try fileSize(options.moviePath),
                thumbnailBytes: try fileSize(options.thumbnailPath), movieContentType: movieType.rawValue,
                thumbnailContentType: thumbnailType.rawValue))
        try put(client, url: issued.movieBodyUrl, headers: issued.movieHeaders, file: options.moviePath)
        try put(
            client, url: issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, file: options.thumbnailPath)
        let item: FeedItem = try api.call(
            "/api/preview/commit", StreamPreviewCommitRequest(streamId: options.streamId, uploadId: issued.uploadId))
        print(String(decoding: item.jsonBytes(), as: UTF8.self))
        return .ok
    }

    private static func put(_ client: HTTPClient, url: String, headers: [String: String], file: String) throws {
        var request = HTTPClientRequest(method: "PUT", url: url, body: .file(path: file))
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name, value) }
        request.timeoutSeconds = 120
        let response = try client.send(request)
        guard (200..<300).contains(response.status) else {
            throw AppError("PUT of \(file) failed with \(response.status): \(APIClient.describe(response))")
        }
    }

    private static func mediaType(of path: String, allowed: [MediaType]) throws -> MediaType {
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

/// Calls API routes with a bearer token in JSON or protobuf.
struct APIClient {
    let client: HTTPClient
    let server: String
    let token: String
    let format: WireFormat

    func call<Response: WireMessage>(_ path: String, _ message: some WireMessage) throws -> Response {
        var request = HTTPClientRequest(
            method: "POST", url: server + path,
            body: .bytes(format == .json ? message.jsonBytes() : message.protobufBytes()))
        request.headers.add("Authorization", "Bearer \(token)")
        request.headers.add("Content-Type", format.contentType)
        request.headers.add("Accept", format.contentType)
        let response = try client.send(request)
        guard response.status == 200 else {
            throw AppError("\(path) failed with \(response.status): \(Self.describe(response))")
        }
        return try format == .json ? Response(json: response.body) : Response(protobuf: response.body)
    }

    static func describe(_ response: HTTPClientResponse) -> String {
        if let error = try? ErrorResponse(json: response.body), !error.code.isEmpty {
            return "\(error.code): \(error.message)"
        }
        if let error = try? ErrorResponse(protobuf: response.body), !error.code.isEmpty {
            return "\(error.code): \(error.message)"
        }
        return String(decoding: response.body.prefix(300), as: UTF8.self)
    }
}

import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewTestSupport
import Testing

/// One HTTP answer of the service.
struct Reply {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON message (proto3 JSON mapping).
    func json<M: WireMessage>(_ type: M.Type) throws -> M { try M(json: body) }

    /// The body as a protobuf message.
    func protobuf<M: WireMessage>(_ type: M.Type) throws -> M { try M(protobuf: body) }
}

/// A user of the service over HTTP with libcurl: the API routes in JSON (or protobuf), and signed URLs as given.
final class APIClient {
    let service: ServiceProcess
    private let http: HTTPClient

    /// How long a request may go unanswered before it counts as failed.
    let timeoutSeconds: Double

    init(_ service: ServiceProcess, timeoutSeconds: Double = 15) throws {
        self.service = service
        self.timeoutSeconds = timeoutSeconds
        http = try HTTPClient()
    }

    var baseURL: String { service.baseURL }

    /// Sends `method` to `target`: a path on the service (`/api/feed`) or an absolute URL.
    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil,
        token: String? = nil
    ) throws -> Reply {
        let url = target.hasPrefix("http") ? target : baseURL + target
        var request = HTTPClientRequest(method: method, url: url, body: body.map { .bytes($0) } ?? .none)
        if let token { request.headers.add("Authorization", "Bearer \(token)") }
        for (name, value) in headers { request.headers.add(name, value) }
        request.timeoutSeconds = timeoutSeconds
        let response = try http.send(request)
        if !target.hasPrefix("http"), method != "GET", method != "HEAD" { awaitReplicaAgreement() }
        return Reply(status: response.status, headers: response.headers, body: response.body)
    }

    /// With several replicas behind the load balancer: waits (up to 10 s, else records an issue) until every
    /// replica's anonymous feed has the same ETag. A replica hears another's commit, like or end of stream over
    /// Redis pub/sub a few milliseconds after it was answered (ReplicaAgreementTests measures it), and round-robin
    /// sends the very next request to the other replica, so without this wait a test reading its own write could
    /// be answered from before it. Called after every API request that may change the feed.
    func awaitReplicaAgreement(sourceLocation: SourceLocation = #_sourceLocation) {
        let replicas = service.replicaURLs
        guard replicas.count > 1 else { return }
        var tags: [String?] = []
        let agreed = eventually(within: 10) {
            tags = replicas.map { replica in
                let request = HTTPClientRequest(method: "GET", url: replica + "/api/feed?limit=100", body: .none)
                guard let response = try? http.send(request), response.status == 200 else { return nil }
                return response.headers["ETag"]
            }
            return tags.allSatisfy { $0 != nil && $0 == tags.first }
        }
        if !agreed { Issue.record("the replicas' feeds disagree: ETags \(tags)", sourceLocation: sourceLocation) }
    }

    /// POSTs a JSON text to an API path.
    func postJSON(_ path: String, _ json: String, token: String?) throws -> Reply {
        try send("POST", path, headers: [("Content-Type", "application/json")], body: Array(json.utf8), token: token)
    }

    /// POST /api/preview/post in JSON.
    func requestUpload(_ message: StreamPreviewPostRequest, token: String?) throws -> Reply {
        try send(
            "POST", "/api/preview/post", headers: [("Content-Type", "application/json")], body: message.jsonBytes(),
            token: token)
    }

    /// POST /api/preview/commit in JSON.
    func commit(streamId: Int64, uploadId: String, token: String?) throws -> Reply {
        try send(
            "POST", "/api/preview/commit", headers: [("Content-Type", "application/json")],
            body: StreamPreviewCommitRequest(streamId: streamId, uploadId: uploadId).jsonBytes(), token: token)
    }

    /// PUTs `bytes` to a signed URL with exactly `headers` (sorted, for a stable wire order).
    func put(_ url: String, headers: [String: String], body bytes: [UInt8]) throws -> Reply {
        try send("PUT", url, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, body: bytes)
    }

    /// GET /api/feed in JSON.
    func feed(token: String? = nil, query: String = "", headers: [(String, String)] = []) throws -> Reply {
        try send("GET", "/api/feed" + (query.isEmpty ? "" : "?" + query), headers: headers, token: token)
    }

    /// The feed items for `token`, expecting 200.
    func feedItems(token: String? = nil, query: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [FeedItem]
    {
        let reply = try feed(token: token, query: query)
        try #require(
            reply.status == 200, "feed answered \(reply.status): \(reply.text)", sourceLocation: sourceLocation)
        return try reply.json(FeedResponse.self).items
    }

    /// Asks for upload URLs with declared sizes and types, expecting 200.
    func issue(
        streamId: Int64, movie: [UInt8], thumbnail: [UInt8], movieType: String = "video/mp4",
        thumbnailType: String = "image/jpeg", details: PreviewDescription = PreviewDescription(), token: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> StreamPreviewPostResponse {
        let reply = try requestUpload(
            StreamPreviewPostRequest(
                streamId: streamId, movieBytes: Int64(movie.count), thumbnailBytes: Int64(thumbnail.count),
                movieContentType: movieType, thumbnailContentType: thumbnailType, details: details),
            token: token)
        try #require(
            reply.status == 200, "post answered \(reply.status): \(reply.text)", sourceLocation: sourceLocation)
        return try reply.json(StreamPreviewPostResponse.self)
    }

    /// The whole uploader flow (post, PUT both, commit), expecting success at each step; returns the item.
    @discardableResult
    func publish(
        streamId: Int64, token: String, movie: [UInt8] = TestMedia.mp4(), thumbnail: [UInt8] = TestMedia.jpeg(),
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> FeedItem {
        let issued = try issue(
            streamId: streamId, movie: movie, thumbnail: thumbnail, token: token, sourceLocation: sourceLocation)
        let moviePut = try put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        try #require(
            moviePut.status == 200, "movie PUT: \(moviePut.status) \(moviePut.text)", sourceLocation: sourceLocation)
        let thumbnailPut = try put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail)
        try #require(
            thumbnailPut.status == 200, "thumbnail PUT: \(thumbnailPut.status) \(thumbnailPut.text)",
            sourceLocation: sourceLocation)
        let committed = try commit(streamId: streamId, uploadId: issued.uploadId, token: token)
        try #require(
            committed.status == 200, "commit: \(committed.status) \(committed.text)", sourceLocation: sourceLocation)
        return try committed.json(FeedItem.self)
    }
}

/// Checks an error answer: status, machine code, target (when given), and the request ID in body and header.
func expectError(
    _ reply: Reply, status: Int, code: String, target: String? = nil, protobuf: Bool = false,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(reply.status == status, "body: \(reply.text)", sourceLocation: sourceLocation)
    let error = protobuf ? try? reply.protobuf(ErrorResponse.self) : try? reply.json(ErrorResponse.self)
    guard let error else {
        Issue.record("error body does not decode: \(reply.text)", sourceLocation: sourceLocation)
        return
    }
    #expect(error.code == code, "message: \(error.message)", sourceLocation: sourceLocation)
    if let target { #expect(error.target == target, sourceLocation: sourceLocation) }
    #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
    let header = reply.headers["X-Request-Id"]
    #expect(header != nil && header == error.requestId, sourceLocation: sourceLocation)
}

/// Unix seconds now.
func unixNow() -> Int64 { Int64(Date().timeIntervalSince1970) }

/// A URL with one query parameter's value replaced (the rest byte for byte as signed).
func replacingQueryValue(_ url: String, name: String, with value: String) -> String {
    guard let question = url.firstIndex(of: "?") else { return url }
    let head = url[...question]
    let pairs = url[url.index(after: question)...].split(separator: "&").map { pair -> String in
        pair.hasPrefix(name + "=") ? name + "=" + value : String(pair)
    }
    return head + pairs.joined(separator: "&")
}

/// A query parameter's value (as sent, not decoded).
func queryValue(_ url: String, name: String) -> String? {
    guard let question = url.firstIndex(of: "?") else { return nil }
    return url[url.index(after: question)...].split(separator: "&")
        .first { $0.hasPrefix(name + "=") }.map { String($0.dropFirst(name.count + 1)) }
}

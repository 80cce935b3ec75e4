public import Foundation

#if canImport(FoundationNetworking)
    public import FoundationNetworking
#endif

/// A StreamPreview server as an app sees it: uploads (`upload(stream:clip:still:)`), the feed,
/// likes and seen marks, and the live events (`events()`). Foundation only (`URLSession`).
///
/// Tokens are never stored: `token` is called before every request that needs one, so an app
/// hands out a fresh one from its own store (and refreshes it there).
public final class StreamPreviewClient: Sendable {
    /// Gives the bearer token for the next request; an app's refresh logic lives behind it.
    public typealias TokenProvider = @Sendable () async throws -> String

    /// The server, such as `https://previews.example.com` (the API is under `/api/`).
    public let baseURL: URL
    /// Retries of the uploader's requests.
    public let retry: UploadRetryPolicy
    let tokenProvider: TokenProvider?
    let transport: SessionTransport

    /// `token`: nil for an anonymous viewer (the feed and the events work without one).
    /// `configuration`: of the session the client makes for itself (timeouts, cellular access);
    /// uploads through a background session go through `SignedPut.request` instead (see
    /// `requestUpload(stream:clip:still:)`).
    public init(
        baseURL: URL, token: TokenProvider? = nil, retry: UploadRetryPolicy = UploadRetryPolicy(),
        configuration: URLSessionConfiguration = .ephemeral
    ) {
        self.baseURL = baseURL
        self.tokenProvider = token
        self.retry = retry
        transport = SessionTransport(configuration: configuration)
    }

    deinit { transport.invalidate() }

    // MARK: The feed

    /// `GET /api/feed`: the live streams in play order. With the token's viewer, `liked` and
    /// `seen` are the caller's. `current`: the stream playing now (it stays at the head while
    /// live). `ifNoneMatch`: the ETag of a feed held; nil when the feed is still that one (304).
    public func feed(limit: Int? = nil, current: Int64? = nil, ifNoneMatch: String? = nil) async throws -> Feed? {
        var query: [URLQueryItem] = []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let current { query.append(URLQueryItem(name: "current", value: String(current))) }
        var request = try await apiRequest("GET", "/api/feed", query: query, authenticated: tokenProvider != nil)
        if let ifNoneMatch { request.setValue(ifNoneMatch, forHTTPHeaderField: "If-None-Match") }
        let (response, body) = try await send(request, label: "GET /api/feed", expecting: [200, 304])
        if response.statusCode == 304 { return nil }
        let decoded: FeedBody = try decode(body, label: "GET /api/feed")
        return Feed(items: decoded.items, etag: response.value(forHTTPHeaderField: "ETag"))
    }

    /// `POST /api/streams/{id}/like` (idempotent).
    public func like(stream: Int64) async throws -> LikeState {
        try await likeCall("POST", stream: stream)
    }

    /// `DELETE /api/streams/{id}/like` (idempotent).
    public func unlike(stream: Int64) async throws -> LikeState {
        try await likeCall("DELETE", stream: stream)
    }

    /// `POST /api/streams/{id}/seen`: the stream's current preview version is seen by the caller.
    public func markSeen(stream: Int64) async throws {
        let path = "/api/streams/\(stream)/seen"
        let request = try await apiRequest("POST", path, authenticated: true)
        _ = try await send(request, label: "POST " + path, expecting: [204])
    }

    /// `DELETE /api/preview/{id}`: end of stream, the preview leaves the feed now (streamer, admin).
    public func endStream(_ stream: Int64) async throws {
        let path = "/api/preview/\(stream)"
        let request = try await apiRequest("DELETE", path, authenticated: true)
        _ = try await send(request, label: "DELETE " + path, expecting: [204])
    }

    private func likeCall(_ method: String, stream: Int64) async throws -> LikeState {
        let path = "/api/streams/\(stream)/like"
        let request = try await apiRequest(method, path, authenticated: true)
        let (_, body) = try await send(request, label: "\(method) \(path)", expecting: [200])
        return try decode(body, label: "\(method) \(path)")
    }

    // MARK: Requests

    /// A request to the API at `path`, JSON both ways, with the token when `authenticated`.
    func apiRequest(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: Data? = nil, authenticated: Bool
    ) async throws -> URLRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw StreamPreviewClientError(failure: .fatal, request: path, message: "bad base URL \(baseURL)")
        }
        components.path =
            components.path.hasSuffix("/") ? String(components.path.dropLast()) + path : components.path + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw StreamPreviewClientError(failure: .fatal, request: path, message: "bad URL for \(path)")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if authenticated {
            guard let tokenProvider else {
                throw StreamPreviewClientError(
                    failure: .fatal, request: "\(method) \(path)", message: "this call needs a token")
            }
            request.setValue("Bearer " + (try await tokenProvider()), forHTTPHeaderField: "Authorization")
        }
        return request
    }

    /// Sends `request` once; an answer outside `expecting` is a `StreamPreviewClientError`.
    func send(_ request: URLRequest, label: String, expecting: Set<Int>) async throws -> (HTTPURLResponse, Data) {
        let (response, body) = try await exchange(request, label: label)
        guard expecting.contains(response.statusCode) else {
            throw StreamPreviewClientError(status: response.statusCode, request: label, headers: response, body: body)
        }
        return (response, body)
    }

    /// One exchange; no answer is a `StreamPreviewClientError` naming how it broke, and a
    /// cancelled Swift task a `CancellationError`.
    func exchange(
        _ request: URLRequest, label: String, file: URL? = nil, onSent: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> (HTTPURLResponse, Data) {
        do {
            return try await transport.exchange(request, file: file, onSent: onSent)
        } catch let error as URLError where error.code == .cancelled {
            throw CancellationError()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw StreamPreviewClientError(error, request: label)
        }
    }

    func decode<T: Decodable>(_ body: Data, label: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: body)
        } catch {
            throw StreamPreviewClientError(
                failure: .invalidAnswer, request: label, message: "the answer does not decode: \(error)")
        }
    }
}

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
    /// How API messages are written both ways.
    public let encoding: APIEncoding
    /// The waits and clocks of the retries.
    let clock: RetryClock
    let tokenProvider: TokenProvider?
    /// The client's own session: the event stream, and every call unless `transport` is given.
    let session: SessionTransport
    let transport: any StreamPreviewTransport

    /// `token`: nil for an anonymous viewer (the feed and the events work without one).
    /// `encoding`: JSON (the default) or protobuf, for requests and answers alike.
    /// `configuration`: of the session the client makes for itself (timeouts, cellular access);
    /// uploads through a background session go through `SignedPut.request` instead (see
    /// `requestUpload(stream:clip:still:)`).
    /// `transport`: carries the API calls and uploads instead of that session (an HTTP stack of
    /// the app's own); `clock`: the retries' waits and clocks.
    public init(
        baseURL: URL, token: TokenProvider? = nil, retry: UploadRetryPolicy = UploadRetryPolicy(),
        encoding: APIEncoding = .json, configuration: URLSessionConfiguration = .ephemeral,
        transport: (any StreamPreviewTransport)? = nil, clock: RetryClock = .system
    ) {
        self.baseURL = baseURL
        self.tokenProvider = token
        self.retry = retry
        self.encoding = encoding
        self.clock = clock
        session = SessionTransport(configuration: configuration)
        self.transport = transport ?? session
    }

    deinit { session.invalidate() }

    // MARK: The feed

    /// `GET /api/feed`: the live streams in play order. With the token's viewer, `liked` and
    /// `seen` are the caller's. `current`: the stream playing now (it stays at the head while
    /// live). `ifNoneMatch`: the ETag of a feed held; nil when the feed is still that one (304).
    public func feed(limit: Int? = nil, current: Int64? = nil, ifNoneMatch: String? = nil) async throws -> Feed? {
        var query: [URLQueryItem] = []
        if let limit { query.append(URLQueryItem(name: "limit", value: String(limit))) }
        if let current { query.append(URLQueryItem(name: "current", value: String(current))) }
        var request = try await apiRequest("GET", "/api/feed", query: query, authenticated: tokenProvider != nil)
        if let ifNoneMatch { request.headers["If-None-Match"] = ifNoneMatch }
        let response = try await send(request, label: "GET /api/feed", expecting: [200, 304])
        if response.status == 304 { return nil }
        let decoded: FeedBody = try decode(response, label: "GET /api/feed")
        return Feed(items: decoded.items, etag: response.header("ETag"))
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
        let response = try await send(request, label: "\(method) \(path)", expecting: [200])
        return try decode(response, label: "\(method) \(path)")
    }

    // MARK: Requests

    /// A request to the API at `path` in the client's encoding, with the token when
    /// `authenticated`.
    func apiRequest(
        _ method: String, _ path: String, query: [URLQueryItem] = [], body: (any RequestMessage)? = nil,
        authenticated: Bool
    ) async throws -> TransportRequest {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false) else {
            throw StreamPreviewClientError(failure: .fatal, request: path, message: "bad base URL \(baseURL)")
        }
        components.path =
            components.path.hasSuffix("/") ? String(components.path.dropLast()) + path : components.path + path
        components.queryItems = query.isEmpty ? nil : query
        guard let url = components.url else {
            throw StreamPreviewClientError(failure: .fatal, request: path, message: "bad URL for \(path)")
        }
        var request = TransportRequest(method: method, url: url, headers: ["Accept": encoding.contentType])
        if let body {
            request.body = try body.encoded(encoding)
            request.headers["Content-Type"] = encoding.contentType
        }
        if authenticated {
            guard let tokenProvider else {
                throw StreamPreviewClientError(
                    failure: .fatal, request: "\(method) \(path)", message: "this call needs a token")
            }
            request.headers["Authorization"] = "Bearer " + (try await tokenProvider())
        }
        return request
    }

    /// Sends `request` once; an answer outside `expecting` is a `StreamPreviewClientError`.
    func send(_ request: TransportRequest, label: String, expecting: Set<Int>) async throws -> TransportResponse {
        let response = try await exchange(request, label: label)
        guard expecting.contains(response.status) else {
            throw StreamPreviewClientError(response, request: label, now: clock.now())
        }
        return response
    }

    /// One exchange; no answer is a `StreamPreviewClientError` naming how it broke, and a
    /// cancelled Swift task a `CancellationError`.
    func exchange(
        _ request: TransportRequest, label: String, onSent: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> TransportResponse {
        do {
            return try await transport.send(request, onSent: onSent)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as TransportError {
            throw StreamPreviewClientError(error, request: label)
        } catch {
            throw StreamPreviewClientError(failure: .fatal, request: label, message: String(describing: error))
        }
    }

    /// The answer's message, in the encoding its `Content-Type` names (JSON when it names none).
    func decode<T: ResponseMessage>(_ response: TransportResponse, label: String) throws -> T {
        do {
            if APIEncoding.protobuf.matches(response.header("Content-Type")) {
                return try T(protobuf: Array(response.body))
            }
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw StreamPreviewClientError(
                failure: .invalidAnswer, request: label, message: "the answer does not decode: \(error)")
        }
    }
}

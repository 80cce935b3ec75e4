import PreviewCore
import PreviewRedis

/// `POST /api/streams/{id}/play` and `/share` (a viewer's client reports a play started or the
/// tracking link copied), `GET /api/streams/{id}/stats` (the figures, for the stream's owner
/// and admins) and `PUT /api/streams/{id}/watch` (where the tracking link sends browsers).
struct FigureHandlers: Sendable {
    let context: AppContext

    /// Counts a play or share of the caller against the live version: 204, or 404
    /// `stream_not_live`. A viewer's repeats count in the totals (within the write rate limit),
    /// once in the distinct estimate.
    func count(_ kind: FigureKind, _ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        guard
            try context.store.count(
                kind, streamId: streamId, viewer: PreviewStore.figureViewer(subject: caller.subject), now: now) != nil
        else { throw APIError(.streamNotLive, "stream \(streamId) has no live preview", target: "streamId") }
        if context.store.figures.enabled { context.metrics.figures.record(kind) }
        return WireIO.noContent()
    }

    func stats(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        try requireFigures()
        try requireOwner(request, of: streamId, reading: true)
        let response = StreamStatsResponse(
            streamId: streamId, versions: try context.store.figures(streamId: streamId, now: context.now),
            watchUrl: try context.store.watchURL(streamId: streamId))
        return WireIO.response(response, for: request)  // no-store, as every API answer
    }

    func setWatchURL(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        try requireOwner(request, of: streamId, reading: false)
        let body = try WireIO.decode(WatchUrlRequest.self, from: request)
        try Self.check(body.watchUrl, allowedSchemes: context.watchURLSchemes)
        try context.store.setWatchURL(streamId: streamId, body.watchUrl)
        return WireIO.noContent()
    }

    /// 400 `invalid_argument` on `watchUrl` unless empty or acceptable (`WatchURL`).
    static func check(_ url: String, allowedSchemes: Set<String>) throws(APIError) {
        guard !url.isEmpty, let problem = WatchURL.problem(url, allowedSchemes: allowedSchemes) else { return }
        throw APIError.invalid("watchUrl", problem)
    }

    /// Figures are a streamer's own business: the stream's streamer or an admin; a viewer 403.
    private func requireOwner(_ request: HTTPRequest, of streamId: Int64, reading: Bool) throws {
        let caller = try context.authenticator.caller(request, now: context.now)
        if caller.role == .viewer {
            let what = reading ? "read a stream's figures" : "set a stream's watch URL"
            throw APIError(.forbidden, "viewer tokens cannot \(what)")
        }
        try Authenticator.requireOwner(caller, of: streamId)
    }

    private func requireFigures() throws {
        guard context.store.figures.enabled else {
            throw APIError(.notFound, "figures are off on this server (--no-stats)")
        }
    }
}

import PreviewCore

/// `GET /api/feed`: the live streams in play order for one viewer.
struct FeedHandler: Sendable {
    let context: AppContext

    func feed(_ request: HTTPRequest) throws -> HTTPResponse {
        let nowMilliseconds = context.nowMilliseconds()
        let now = nowMilliseconds / 1000
        let caller = try context.authenticator.optionalCaller(request, now: now)
        let query = try FeedQuery.parse(rawQuery: request.rawQuery).get()
        let live = try context.liveCache.streams(nowMilliseconds: nowMilliseconds)
        // The only per-viewer Redis round trip.
        let viewer = try caller.map { try context.store.viewerState(subject: $0.subject) } ?? .anonymous
        let ranked = Ranking.playOrder(live: live, viewer: viewer, current: query.current, now: now, limit: query.limit)
        let items = try ranked.map { try context.feedItem($0.stream, seen: $0.seen, liked: $0.liked, now: now) }
        var response = WireIO.response(FeedResponse(items: items), for: request)
        response.headers.set("Cache-Control", "private, no-cache")
        response.headers.add("Vary", "Accept, Authorization")
        guard case .bytes(let body) = response.body else { return response }
        let etag = "\"" + Hex.encode(context.crypto.sha256(body).prefix(16)) + "\""
        response.headers.add("ETag", etag)
        if EntityTag.ifNoneMatch(request.headers["If-None-Match"], matches: etag) {
            response.status = 304
            response.body = .bytes([])
            response.headers.remove("Content-Type")
        }
        return response
    }
}

import PreviewCore

/// `GET /api/feed`: the live streams in play order for one viewer, spliced from the shared
/// snapshot with the viewer's flags (held by this process, `ViewerHistoryCache`, or else one
/// Redis round trip for the streams that decide the order: see `FeedSnapshot.playOrder`).
struct FeedHandler: Sendable {
    let context: AppContext

    func feed(_ request: HTTPRequest) throws -> HTTPResponse {
        let nowMilliseconds = context.nowMilliseconds()
        let now = nowMilliseconds / 1000
        let caller = try context.authenticator.optionalCaller(request, now: now)
        let query = try FeedQuery.parse(rawQuery: request.rawQuery).get()
        let snapshot = try context.feedCache.snapshot(nowMilliseconds: nowMilliseconds)
        let picks = try snapshot.playOrder(now: now, limit: query.limit, current: query.current) { streamIds in
            guard let caller else { return Array(repeating: ViewerFlags(), count: streamIds.count) }
            return try context.viewerFlags(
                subject: caller.subject, streamIds: streamIds, nowMilliseconds: nowMilliseconds)
        }
        let format = WireIO.responseFormat(for: request)
        let body = snapshot.response(picks, format: format)
        var response = WireIO.response(body: body, format: format)
        response.headers.set("Cache-Control", "private, no-cache")
        response.headers.add("Vary", "Accept, Authorization")
        let etag = snapshot.entityTag(picks, format: format, crypto: context.crypto)
        response.headers.add("ETag", etag)
        if EntityTag.ifNoneMatch(request.headers["If-None-Match"], matches: etag) {
            response.status = 304
            response.body = .bytes([])
            response.headers.remove("Content-Type")
        }
        return response
    }
}

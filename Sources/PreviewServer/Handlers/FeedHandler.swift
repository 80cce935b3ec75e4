import PreviewCore

/// `GET /api/feed`: the live streams in play order for one viewer, spliced from the shared
/// snapshot with the viewer's flags (from the history this process holds, `ViewerHistoryCache`,
/// or else one Redis round trip for the streams that decide the order: see
/// `FeedSnapshot.playOrder`).
struct FeedHandler: Sendable {
    let context: AppContext

    /// From this many streams seen, a viewer's feed reads a `SeenEntries` (kept with the history
    /// while the live list's membership stays) instead of probing the history stream by stream:
    /// the first walk of the play order probes about this many.
    static let seenEntriesFrom = 64

    func feed(_ request: HTTPRequest) throws -> HTTPResponse {
        let nowMilliseconds = context.nowMilliseconds()
        let now = nowMilliseconds / 1000
        let caller = try context.authenticator.optionalCaller(request, now: now)
        let query = try FeedQuery.parse(rawQuery: request.rawQuery).get()
        let snapshot = try context.feedCache.snapshot(nowMilliseconds: nowMilliseconds)
        let picks: [FeedPick]
        if let caller {
            if let held = try context.viewerHistory(subject: caller.subject, nowMilliseconds: nowMilliseconds) {
                var seen: SeenEntries?
                if held.history.seen.count >= Self.seenEntriesFrom {
                    let made = snapshot.seenEntries(held.history, reusing: held.seenEntries)
                    if made !== held.seenEntries, let revision = held.revision {
                        context.viewerCache?.remember(made, subject: caller.subject, revision: revision)
                    }
                    seen = made
                }
                picks = snapshot.playOrder(
                    now: now, limit: query.limit, current: query.current, history: held.history, seen: seen)
            } else {
                picks = try snapshot.playOrder(now: now, limit: query.limit, current: query.current) { streamIds in
                    try context.store.viewerFlags(subject: caller.subject, streamIds: streamIds)
                }
            }
        } else {
            // Anonymous: nothing seen, nothing liked.
            picks = snapshot.playOrder(now: now, limit: query.limit, current: query.current, history: ViewerHistory())
        }
        let format = WireIO.responseFormat(for: request)
        let (body, etag) = snapshot.answer(picks, format: format, crypto: context.crypto)
        var response = WireIO.response(body: body, format: format)
        response.headers.set("Cache-Control", "private, no-cache")
        response.headers.add("Vary", "Accept, Authorization")
        response.headers.add("ETag", etag)
        if EntityTag.ifNoneMatch(request.headers["If-None-Match"], matches: etag) {
            response.status = 304
            response.body = .bytes([])
            response.headers.remove("Content-Type")
        }
        return response
    }
}

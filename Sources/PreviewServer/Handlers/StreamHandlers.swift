import PreviewCore

/// `POST|DELETE /api/streams/{id}/like` and `POST /api/streams/{id}/seen`.
struct StreamHandlers: Sendable {
    let context: AppContext

    func like(_ request: HTTPRequest, streamId: Int64, liked: Bool) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        guard
            let result = try context.store.setLike(
                streamId: streamId, subject: caller.subject, like: liked, now: now, ttl: context.seenTTL)
        else { throw notLive(streamId) }
        context.feedCache.liked(streamId: streamId, count: result.count)
        context.viewerCache?.liked(subject: caller.subject, streamId: streamId, liked: liked)
        try trimIfGrown(subject: caller.subject, size: result.viewerLikes, spare: streamId)
        return WireIO.response(LikeResponse(likes: result.count.likes, liked: liked), for: request)
    }

    func seen(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        guard
            let marked = try context.store.markSeen(
                streamId: streamId, subject: caller.subject, now: now, ttl: context.seenTTL)
        else { throw notLive(streamId) }
        if context.store.figures.enabled { context.metrics.figures.record(.impression) }
        context.viewerCache?.seen(subject: caller.subject, streamId: streamId, version: marked.version)
        try trimIfGrown(subject: caller.subject, size: marked.viewerSeen, spare: streamId)
        return WireIO.noContent()
    }

    /// Keeps a viewer's seen and liked state near the size of the live list: once either
    /// holds `trimSlack` more streams than are live, entries of streams no longer live go.
    /// Amortised: a trim reads the viewer's state once per `trimSlack` new streams at most.
    private func trimIfGrown(subject: String, size: Int, spare: Int64) throws {
        let snapshot = try context.feedCache.snapshot(nowMilliseconds: context.nowMilliseconds())
        guard size > snapshot.count + Self.trimSlack else { return }
        try context.store.trimViewer(subject: subject, spare: spare) { snapshot.entry(streamId: $0) != nil }
        context.viewerCache?.forget(subject: subject)
    }

    static let trimSlack = 64

    private func notLive(_ streamId: Int64) -> APIError {
        APIError(.streamNotLive, "stream \(streamId) has no live preview", target: "streamId")
    }
}

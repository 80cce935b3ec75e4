import PreviewCore

/// `POST|DELETE /api/streams/{id}/like` and `POST /api/streams/{id}/seen`.
struct StreamHandlers: Sendable {
    let context: AppContext

    func like(_ request: HTTPRequest, streamId: Int64, liked: Bool) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        guard let likes = try context.store.setLike(streamId: streamId, subject: caller.subject, like: liked, now: now)
        else { throw notLive(streamId) }
        context.feedCache.liked(streamId: streamId, likes: likes)
        return WireIO.response(LikeResponse(likes: likes, liked: liked), for: request)
    }

    func seen(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        guard try context.store.markSeen(streamId: streamId, subject: caller.subject, now: now, ttl: context.seenTTL)
        else { throw notLive(streamId) }
        return WireIO.noContent()
    }

    private func notLive(_ streamId: Int64) -> APIError {
        APIError(.streamNotLive, "stream \(streamId) has no live preview", target: "streamId")
    }
}

import Foundation
import PreviewCore
import PreviewCrypto
import PreviewRedis

/// The server's responder: parses the route, dispatches with one exhaustive switch, and turns
/// every failure into an `APIError` response in one place. Unexpected errors become
/// `internal`, logged once with the request ID.
struct Router: HTTPResponder {
    let context: AppContext
    let uploads: UploadHandlers
    let feed: FeedHandler
    let streams: StreamHandlers
    let health: HealthHandlers
    let objects: ObjectHandlers?

    init(context: AppContext) {
        self.context = context
        uploads = UploadHandlers(context: context)
        feed = FeedHandler(context: context)
        streams = StreamHandlers(context: context)
        health = HealthHandlers(context: context)
        objects = context.localStore.map { store in
            ObjectHandlers(
                store: store, maxObjectBytes: max(context.policy.maxMovieBytes, context.policy.maxThumbnailBytes),
                nowSeconds: { [context] in context.now })
        }
    }

    func bodyLimit(for head: HTTPRequestHead) -> Int {
        if head.method == "PUT", head.path.hasPrefix(Route.objectsPrefix), let objects {
            return objects.bodyLimit(rawQuery: head.rawQuery)
        }
        return WireIO.maxAPIBodyBytes
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = context.nowMilliseconds()
        let requestId = Self.requestId()
        var response: HTTPResponse
        do {
            response = try dispatch(request)
        } catch let error as APIError {
            response = WireIO.error(error, requestId: requestId, for: request)
        } catch let error as RedisError where error.kind != .server {
            Log.warn("redis_unavailable", ["request_id": requestId, "error": error.description])
            response = WireIO.error(.redisUnavailable, requestId: requestId, for: request)
        } catch let error as StorageError {
            Log.warn("storage_unavailable", ["request_id": requestId, "error": error.description])
            response = WireIO.error(.storageUnavailable, requestId: requestId, for: request)
        } catch {
            Log.error("internal_error", ["request_id": requestId, "path": request.path, "error": "\(error)"])
            response = WireIO.error(.internalError, requestId: requestId, for: request)
        }
        response.headers.add("X-Request-Id", requestId)
        Log.info(
            "request",
            [
                "request_id": requestId, "method": request.method, "path": request.path,
                "status": String(response.status), "ms": String(context.nowMilliseconds() - started),
            ])
        return response
    }

    private func dispatch(_ request: HTTPRequest) throws -> HTTPResponse {
        let route = try Route.parse(method: request.method, path: request.path).mapError(\.apiError).get()
        if request.bodyTooLarge, !isObject(route) {
            throw APIError(.payloadTooLarge, "the request body is over \(WireIO.maxAPIBodyBytes) bytes")
        }
        if isAPI(route) { try WireIO.requireAcceptableFormat(request) }
        switch route {
        case .health: return health.health()
        case .ready: return health.ready()
        case .postPreview: return try uploads.post(request)
        case .commitPreview: return try uploads.commit(request)
        case .deletePreview(let id): return try uploads.delete(request, streamId: id)
        case .feed: return try feed.feed(request)
        case .like(let id): return try streams.like(request, streamId: id, liked: true)
        case .unlike(let id): return try streams.like(request, streamId: id, liked: false)
        case .markSeen(let id): return try streams.seen(request, streamId: id)
        case .object(let method, _):
            guard let objects else { throw APIError(.notFound, "objects are not served by this process") }
            switch method {
            case .put: return try objects.put(request)
            case .get: return try objects.get(request, head: false)
            case .head: return try objects.get(request, head: true)
            case .delete: return try objects.delete(request)
            }
        }
    }

    /// The `/api/` routes, which answer in JSON or protobuf (not health checks, not objects).
    private func isAPI(_ route: Route) -> Bool {
        switch route {
        case .health, .ready, .object: return false
        case .postPreview, .commitPreview, .deletePreview, .feed, .like, .unlike, .markSeen: return true
        }
    }

    private func isObject(_ route: Route) -> Bool {
        if case .object = route { return true }
        return false
    }

    /// 16 hex digits; unique enough to find a request in the logs.
    private static func requestId() -> String {
        Hex.encode((try? SecureRandom.bytes(8)) ?? [])
    }
}

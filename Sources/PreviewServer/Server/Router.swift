import Foundation
import PreviewCore
import PreviewCrypto
import PreviewRedis

/// The server's responder: parses the route, dispatches with one exhaustive switch, and turns
/// every failure into an `APIError` response in one place. Unexpected errors become
/// `internal`, logged once with the request ID.
package struct Router: HTTPResponder {
    let context: AppContext
    let uploads: UploadHandlers
    let feed: FeedHandler
    let streams: StreamHandlers
    let health: HealthHandlers
    let objects: ObjectHandlers?
    /// `GET /metrics` on this listener; nil when metrics have a listener of their own.
    let metrics: MetricsHandler?
    let events: FeedEventsHandler
    let shares: ShareHandler
    let figures: FigureHandlers
    /// The viewer page; nil with `--no-viewer-page`.
    let viewerPage: ViewerPageHandler?

    package init(context: AppContext, servesMetrics: Bool = true) {
        self.context = context
        metrics = servesMetrics ? MetricsHandler(context: context, dedicatedListener: false) : nil
        uploads = UploadHandlers(context: context)
        feed = FeedHandler(context: context)
        streams = StreamHandlers(context: context)
        health = HealthHandlers(context: context)
        events = FeedEventsHandler(events: context.feedEvents)
        shares = ShareHandler(context: context)
        figures = FigureHandlers(context: context)
        viewerPage = context.servesViewerPage ? ViewerPageHandler(context: context) : nil
        objects = context.localStore.map { store in
            ObjectHandlers(
                store: store, maxObjectBytes: max(context.policy.maxMovieBytes, context.policy.maxThumbnailBytes),
                diskFloor: context.diskFloor, nowSeconds: { [context] in context.now })
        }
    }

    /// Decided on the head: object PUTs stream into the store or are refused before any body
    /// byte; other object requests take no body, API requests up to 64 KiB, and a larger
    /// declared body is refused at once instead of being read. Where the answer is computed is
    /// decided here too, by `thread(for:)`.
    func admit(_ head: HTTPRequestHead) -> RequestAdmission {
        var limit = WireIO.maxAPIBodyBytes
        let route = try? Route.parse(method: head.method, path: head.path).get()
        if case .object(let method, _) = route {
            if method == .put, let objects {
                do {
                    return .stream(try objects.admitPut(head))
                } catch {
                    return .reject(answer(head, error))
                }
            }
            limit = 0
        }
        // The HTTP server has refused a Content-Length that is not a plain decimal number, so one
        // that does not fit an Int is larger than any limit.
        if let declared = head.headers["Content-Length"], Int(declared).map({ $0 > limit }) ?? true {
            let message = limit == 0 ? "this request takes no body" : "the request body is over \(limit) bytes"
            return .reject(answer(head, APIError(.payloadTooLarge, message)))
        }
        if let route, Self.needsCaller(route), Self.declaresBody(head) {
            // An anonymous client does not get to send a body it is not allowed to send: a
            // missing or invalid token is answered now, before a body byte is read.
            do {
                _ = try context.authenticator.caller(Self.bodiless(head), now: context.now)
            } catch {
                return .reject(answer(head, error))
            }
        }
        // An event stream holds a stream slot while it is open, never a connection slot.
        if case .feedEvents? = route { return .openStream(on: Self.thread(for: route)) }
        return .buffer(limit: limit, on: Self.thread(for: route))
    }

    /// The routes whose handler starts with `Authenticator.caller` (`RouteTraits.needsCaller`).
    static func needsCaller(_ route: Route) -> Bool { route.traits.needsCaller }

    private static func declaresBody(_ head: HTTPRequestHead) -> Bool {
        head.headers["Transfer-Encoding"] != nil || head.headers["Content-Length"].map { $0 != "0" } == true
    }

    /// The request as far as its head tells.
    private static func bodiless(_ head: HTTPRequestHead) -> HTTPRequest {
        HTTPRequest(
            method: head.method, path: head.path, rawQuery: head.rawQuery, headers: head.headers,
            remoteAddress: head.remoteAddress)
    }

    /// Where a route is answered. On the connection's I/O thread (no suspend, no hand-off) when
    /// its handler touches only memory, signing and Redis (a scrape too: it is answered from the
    /// page rendered at most once per --metrics-max-age-ms); on a worker when it may wait on
    /// object storage or disk (`RouteTraits.waitsOnStorage`), so a stalled store never holds the
    /// threads that serve reads. An unknown route (nil) is an error answer.
    static func thread(for route: Route?) -> ResponderThread {
        guard let route, route.traits.waitsOnStorage else { return .connection }
        return .worker
    }

    func refuse(_ head: HTTPRequestHead, reason: HTTPRefusal) -> HTTPResponse {
        switch reason {
        case .ambiguousFraming(let why): return answer(head, APIError(.badRequest, "ambiguous body framing: \(why)"))
        case .streamSlotsFull(let perAddress):
            let whose = perAddress ? "from your address are" : "are"
            return answer(
                head,
                APIError(
                    .eventStreamsFull, "all event streams this server holds \(whose) open; reconnect after Retry-After",
                    retryAfter: Self.streamRetryAfter()))
        }
    }

    /// Seconds a refused event stream is told to wait: 5 to 15, drawn for each answer, so the
    /// clients refused together do not all come back in the same second.
    static func streamRetryAfter() -> Int64 { Int64.random(in: 5...15) }

    /// An error answer to a request refused on its head, rendered and logged like any other.
    private func answer(_ head: HTTPRequestHead, _ error: any Error) -> HTTPResponse {
        let started = ContinuousClock.now
        let request = Self.bodiless(head)
        let requestId = Self.requestId(of: request)
        let label = Self.label(Route.parse(method: head.method, path: head.path), method: head.method)
        var response = errorResponse(error, requestId: requestId, for: request)
        response.headers.add("X-Request-Id", requestId)
        let forwarded = context.forwardedClient(peer: head.remoteAddress, headers: head.headers)
        return finished(
            response, for: request, label: label, requestId: requestId, forwarded: forwarded, started: started)
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        let requestId = Self.requestId(of: request)
        let route = Route.parse(method: request.method, path: request.path)
        var request = request
        // Accept is read once: the check below, the handler and an error answer all use this.
        if case .success(let route) = route, Self.isAPI(route) { request.negotiation = WireIO.negotiate(request) }
        let forwarded = context.forwardedClient(peer: request.remoteAddress, headers: request.headers)
        var response: HTTPResponse
        var limitFields: RateLimitFields.Answer?
        do {
            if case .success(let matched) = route, let limitClass = RateLimitClass(matched),
                let limiting = context.rateLimiting
            {
                // Verified once: the limiter counts the token's subject, the handler acts for it.
                request.authentication = context.authenticator.authentication(of: request, now: context.now)
                limitFields = try limiting.admit(
                    limitClass, caller: caller(of: request, forwarded: forwarded),
                    nowMilliseconds: context.nowMilliseconds())
            }
            response = try dispatch(request, route: route)
        } catch {
            response = errorResponse(error, requestId: requestId, for: request)
        }
        // Every answer of a limited class carries its policy and state, errors included.
        limitFields?.add(to: &response.headers)
        response.headers.add("X-Request-Id", requestId)
        // Draining: clients reconnect, and a load balancer sends them to another replica.
        if context.lifecycle.isDraining { response.headers.add("Connection", "close") }
        return finished(
            response, for: request, label: Self.label(route, method: request.method), requestId: requestId,
            forwarded: forwarded, started: started)
    }

    /// Whom the rate limits count a request for: the subject of a valid token, else the client
    /// address (an invalid token is answered 401 by the handler, after it is counted).
    private func caller(of request: HTTPRequest, forwarded: IPAddress?) -> String {
        if case .success(let claims?)? = request.authentication {
            return RateLimiting.caller(subject: claims.subject, client: nil, peer: request.remoteAddress)
        }
        let client = forwarded ?? IPAddress(request.remoteAddress)
        return RateLimiting.caller(subject: nil, client: client, peer: request.remoteAddress)
    }

    /// The route template a request is counted and logged under: `other` when no route matched.
    private static func label(_ route: Result<Route, RouteError>, method: String) -> RouteLabel {
        switch route {
        case .success(let route): return RouteLabel(route)
        case .failure: return .other(method: method)
        }
    }

    /// Every failure as an API error response, in one place.
    private func errorResponse(_ error: any Error, requestId: String, for request: HTTPRequest) -> HTTPResponse {
        switch error {
        case let error as APIError:
            return WireIO.error(error, requestId: requestId, for: request)
        case let failure as APIFailure:
            var response = WireIO.error(failure.error, requestId: requestId, for: request)
            for field in failure.headers { response.headers.add(field.name, field.value) }
            return response
        case let error as RedisError where error.kind != .server:
            Log.warn("redis_unavailable", ["request_id": requestId, "error": error.description])
            return WireIO.error(.redisUnavailable, requestId: requestId, for: request)
        case let error as StorageError:
            Log.warn("storage_unavailable", ["request_id": requestId, "error": error.description])
            return WireIO.error(.storageUnavailable, requestId: requestId, for: request)
        default:
            Log.error("internal_error", ["request_id": requestId, "path": request.path, "error": "\(error)"])
            return WireIO.error(.internalError, requestId: requestId, for: request)
        }
    }

    /// Adds what every response of its route carries, counts the request in the metrics and
    /// logs it once.
    private func finished(
        _ response: HTTPResponse, for request: HTTPRequest, label: RouteLabel, requestId: String,
        forwarded: IPAddress?, started: ContinuousClock.Instant
    ) -> HTTPResponse {
        var response = response
        if request.path.hasPrefix(Route.objectsPrefix) {
            // Objects are served with the type their upload URL signed; browsers must not guess another.
            response.headers.set("X-Content-Type-Options", "nosniff")
        }
        // Here, so error answers and requests refused on their head carry them too.
        context.cors?.decorate(
            &response.headers, method: request.method, path: request.path, requestHeaders: request.headers)
        let nanoseconds = started.duration(to: .now).metricNanoseconds
        context.metrics.http.record(label, status: response.status, nanoseconds: nanoseconds)
        Log.request(
            [
                "request_id": requestId, "method": request.method, "route": label.route, "path": request.path,
                "status": String(response.status), "ms": Self.milliseconds(nanoseconds),
                "bytes": String(request.method == "HEAD" ? 0 : response.bodyLength),
                "client": forwarded?.description ?? request.remoteAddress,
            ])
        return response
    }

    private func dispatch(_ request: HTTPRequest, route: Result<Route, RouteError>) throws -> HTTPResponse {
        if request.method == "OPTIONS", let cors = context.cors, CORSPolicy.covers(path: request.path) {
            return try preflight(request, cors: cors)
        }
        let route = try route.mapError { failure(of: $0, path: request.path) }.get()
        if request.bodyTooLarge {
            throw APIError(.payloadTooLarge, "the request body is over \(WireIO.maxAPIBodyBytes) bytes")
        }
        if Self.isAPI(route) { try WireIO.requireAcceptableFormat(request) }
        switch route {
        case .health: return health.health()
        case .ready: return health.ready()
        case .metrics:
            guard let metrics else { throw RouteError.notFound.apiError }
            return try metrics.metrics(request)
        case .postPreview: return try uploads.post(request)
        case .commitPreview: return try uploads.commit(request)
        case .deletePreview(let id): return try uploads.delete(request, streamId: id)
        case .feed: return try feed.feed(request)
        case .like(let id): return try streams.like(request, streamId: id, liked: true)
        case .unlike(let id): return try streams.like(request, streamId: id, liked: false)
        case .markSeen(let id): return try streams.seen(request, streamId: id)
        case .reportPlay(let id): return try figures.count(.play, request, streamId: id)
        case .reportShare(let id): return try figures.count(.share, request, streamId: id)
        case .streamStats(let id): return try figures.stats(request, streamId: id)
        case .setWatchURL(let id): return try figures.setWatchURL(request, streamId: id)
        case .openAPIDocument: return OpenAPIHandler.document()
        case .feedEvents: return try events.events(request)
        case .viewerPage(let asset):
            guard let viewerPage else { throw APIError(.notFound, "the viewer page is off (--no-viewer-page)") }
            return viewerPage.answer(request, asset: asset)
        case .share(let id): return try shares.share(request, streamId: id)
        case .shareThumbnail(let id): return try shares.thumbnail(request, streamId: id)
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

    /// `OPTIONS` on a CORS path, answered from the policy alone (no token, no Redis): 204 with the
    /// CORS fields for an allowed preflight, 403 without them for a refused one, 204 with `Allow`
    /// for an `OPTIONS` that is not a preflight.
    private func preflight(_ request: HTTPRequest, cors: CORSPolicy) throws -> HTTPResponse {
        let methods = try Route.methods(path: request.path).mapError { failure(of: $0, path: request.path) }.get()
        if objects == nil, request.path.hasPrefix(Route.objectsPrefix) {
            throw APIError(.notFound, "objects are not served by this process")
        }
        switch cors.preflight(path: request.path, methods: methods, requestHeaders: request.headers) {
        case .allowed(let headers): return HTTPResponse(status: 204, headers: headers)
        case .options(let allow):
            return HTTPResponse(status: 204, headers: HTTPHeaders([("Allow", allow.joined(separator: ", "))]))
        case .refused(let why): throw APIError(.forbidden, "CORS preflight refused: \(why)")
        }
    }

    /// A route error as an API failure; a 405 on a CORS path names `OPTIONS` in `Allow` too when
    /// CORS is on.
    private func failure(of error: RouteError, path: String) -> APIFailure {
        var headers = error.headers
        if case .methodNotAllowed(let allowed) = error, let cors = context.cors {
            headers.set("Allow", cors.allowedMethods(allowed, path: path).joined(separator: ", "))
        }
        return APIFailure(error.apiError, headers: headers)
    }

    /// The `/api/` routes, which answer in JSON or protobuf (not health checks, not objects, not
    /// the OpenAPI document, which is YAML whatever Accept says, not the event stream, whose
    /// client asks for `text/event-stream`, not pages).
    private static func isAPI(_ route: Route) -> Bool { route.traits.isAPI }

    /// The client's `X-Request-Id` when it is well-formed (`RequestID.wellFormed`), otherwise
    /// 16 fresh hex digits: unique enough to find a request in the logs.
    private static func requestId(of request: HTTPRequest) -> String {
        RequestID.wellFormed(request.headers["X-Request-Id"]) ?? freshIds.next()
    }

    /// Started at random (the system's generator), so processes start apart.
    private static let freshIds = RequestIDSource(start: UInt64.random(in: .min ... .max))

    /// `12.345`: milliseconds with three decimals, without Foundation's formatting.
    static func milliseconds(_ nanoseconds: Int64) -> String {
        let micros = nanoseconds / 1000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Every route of the service, parsed by one pure function and dispatched by an exhaustive switch.
public enum Route: Sendable, Equatable {
    case health
    case ready
    /// Prometheus metrics (`GET /metrics`).
    case metrics
    case postPreview
    case commitPreview
    case deletePreview(streamId: Int64)
    case feed
    case like(streamId: Int64)
    case unlike(streamId: Int64)
    case markSeen(streamId: Int64)
    /// A viewer's client started playing the stream's clip (`POST /api/streams/{streamId}/play`).
    case reportPlay(streamId: Int64)
    /// A viewer's client copied or shared the tracking link (`POST /api/streams/{streamId}/share`).
    case reportShare(streamId: Int64)
    /// The figures of the stream's preview versions (`GET /api/streams/{streamId}/stats`).
    case streamStats(streamId: Int64)
    /// Sets or clears where the tracking link sends browsers (`PUT /api/streams/{streamId}/watch`).
    case setWatchURL(streamId: Int64)
    /// The API's OpenAPI 3.1 description (`GET /api/openapi.yaml`, proto/openapi.yaml).
    case openAPIDocument
    /// Server-sent events of the live list (`GET /api/feed/events`).
    case feedEvents
    /// The viewer page and its files (`GET /`, `/viewer.js`, `/viewer.css`, `/favicon.ico`).
    case viewerPage(ViewerAsset)
    /// The tracking link: counts an open, then sends a browser to the stream's watch URL (or a
    /// page with link-preview tags, which link previewers always get), anything else to the clip
    /// (`GET /s/{streamId}`).
    case share(streamId: Int64)
    /// A share link's thumbnail: a redirect (`GET /s/{streamId}/thumbnail`).
    case shareThumbnail(streamId: Int64)
    /// The embedded local object store; `encodedKey` is the object key still percent-encoded as sent.
    case object(method: ObjectMethod, encodedKey: String)

    public enum ObjectMethod: String, Sendable {
        case get = "GET", head = "HEAD", put = "PUT", delete = "DELETE"
    }

    /// The files of the viewer page, by path.
    public enum ViewerAsset: String, Sendable, CaseIterable {
        case page = "/"
        case script = "/viewer.js"
        case style = "/viewer.css"
        /// Browsers ask for it by themselves: answered 204, so they stop asking (and log no error).
        case icon = "/favicon.ico"
    }

    /// Prefix under which the local object store serves objects.
    public static let objectsPrefix = "/objects/"

    /// Maps method + raw path to a route. Unknown paths are 404, known paths with another
    /// method 405 (with the allowed methods), malformed stream IDs 400.
    public static func parse(method: String, path: String) -> Result<Route, RouteError> {
        if path.hasPrefix(objectsPrefix) {
            let key = String(path.dropFirst(objectsPrefix.count))
            guard let objectMethod = ObjectMethod(rawValue: method) else {
                return .failure(.methodNotAllowed(allowed: ["GET", "HEAD", "PUT", "DELETE"]))
            }
            return .success(.object(method: objectMethod, encodedKey: key))
        }
        // A path of one route: its method is the route's (`RouteKind.traits`).
        func only(_ route: Route) -> Result<Route, RouteError> {
            let allowed = route.traits.method
            return method == allowed ? .success(route) : .failure(.methodNotAllowed(allowed: [allowed]))
        }
        // The fixed paths, matched whole: the feed and health checks are most of the traffic.
        switch path {
        case "/api/feed": return only(.feed)
        case "/healthz": return only(.health)
        case "/readyz": return only(.ready)
        case "/metrics": return only(.metrics)
        case "/api/preview/post": return only(.postPreview)
        case "/api/preview/commit": return only(.commitPreview)
        case "/api/openapi.yaml": return only(.openAPIDocument)
        case "/api/feed/events": return only(.feedEvents)
        case "/": return only(.viewerPage(.page))
        case "/viewer.js": return only(.viewerPage(.script))
        case "/viewer.css": return only(.viewerPage(.style))
        case "/favicon.ico": return only(.viewerPage(.icon))
        default: break
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // A leading "/" yields an empty first part.
        guard parts.first == "" else { return .failure(.notFound) }
        let segments = Array(parts.dropFirst())
        switch segments {
        case let s where s.count == 3 && s[0] == "api" && s[1] == "preview":
            return streamID(s[2]).flatMap { only(.deletePreview(streamId: $0)) }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "like":
            return streamID(s[2]).flatMap { id in
                switch method {
                case "POST": return .success(.like(streamId: id))
                case "DELETE": return .success(.unlike(streamId: id))
                default: return .failure(.methodNotAllowed(allowed: ["POST", "DELETE"]))
                }
            }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "seen":
            return streamID(s[2]).flatMap { only(.markSeen(streamId: $0)) }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "play":
            return streamID(s[2]).flatMap { only(.reportPlay(streamId: $0)) }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "share":
            return streamID(s[2]).flatMap { only(.reportShare(streamId: $0)) }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "stats":
            return streamID(s[2]).flatMap { only(.streamStats(streamId: $0)) }
        case let s where s.count == 4 && s[0] == "api" && s[1] == "streams" && s[3] == "watch":
            return streamID(s[2]).flatMap { only(.setWatchURL(streamId: $0)) }
        case let s where s.count == 2 && s[0] == "s":
            return streamID(s[1]).flatMap { only(.share(streamId: $0)) }
        case let s where s.count == 3 && s[0] == "s" && s[2] == "thumbnail":
            return streamID(s[1]).flatMap { only(.shareThumbnail(streamId: $0)) }
        default:
            return .failure(.notFound)
        }
    }

    /// The methods a path takes, as a 405 names them, or why the path names no route: what a
    /// CORS preflight (`OPTIONS`) of the path is answered from.
    public static func methods(path: String) -> Result<[String], RouteError> {
        // No route takes OPTIONS, so parsing with it yields the path's 405, or its 404 or 400.
        switch parse(method: "OPTIONS", path: path) {
        case .failure(.methodNotAllowed(let allowed)): return .success(allowed)
        case .failure(let error): return .failure(error)
        case .success: return .failure(.notFound)
        }
    }

    private static func streamID(_ text: String) -> Result<Int64, RouteError> {
        guard let id = StreamID.parse(text) else { return .failure(.badStreamID(text)) }
        return .success(id)
    }
}

public enum RouteError: Error, Sendable, Equatable {
    case notFound
    case methodNotAllowed(allowed: [String])
    case badStreamID(String)

    /// The response fields the error requires: `Allow` on a 405 (RFC 9110 §15.5.6).
    public var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if case .methodNotAllowed(let allowed) = self { headers.add("Allow", allowed.joined(separator: ", ")) }
        return headers
    }

    public var apiError: APIError {
        switch self {
        case .notFound: return APIError(.notFound, "no such route")
        case .methodNotAllowed(let allowed):
            return APIError(.methodNotAllowed, "method not allowed; use \(allowed.joined(separator: ", "))")
        case .badStreamID:
            return .invalid("streamId", "streamId must be a positive 64-bit integer in decimal, without leading zeros")
        }
    }
}

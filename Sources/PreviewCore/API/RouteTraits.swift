/// Every route the server answers, one per template and method: what metrics and logs label a
/// request with (the raw value is its row), and the key to the route's one description,
/// `traits`.
public enum RouteKind: Int, CaseIterable, Sendable {
    case health, ready, metrics
    case postPreview, commitPreview, deletePreview
    case feed, like, unlike, markSeen
    case objectGet, objectHead, objectPut, objectDelete
    case openAPIDocument, feedEvents, viewerPage, viewerFile
    case share, shareThumbnail
    case reportPlay, reportShare, streamStats, setWatchURL
}

/// How far CORS reaches a route: browsers on other origins read it or not, and with which grant.
public enum CORSReach: Sendable, Equatable {
    /// No CORS fields: metrics are for scrapers, pages and share links are visited, not fetched.
    case none
    /// A listed origin may call it (`--cors-origin`).
    case listedOrigins
    /// `*` may read it too, without a token (`--cors-any-origin-reads`).
    case anonymousRead
}

/// A route as the server describes it, once (`RouteKind.traits`): its method and template, and
/// what the server does around its handler. Parsing checks the method here, metrics label by
/// the template, the limiter counts the class, the router negotiates, authenticates early and
/// picks the thread, CORS decides its reach; the handler is the router's `dispatch`.
public struct RouteTraits: Sendable, Equatable {
    public var method: String
    /// The path with its variables named: `/api/streams/{streamId}/like`.
    public var template: String
    /// The rate-limit class it is counted in; nil for routes that are not limited (health,
    /// readiness, metrics, the OpenAPI document, the viewer page, objects: those are signed
    /// URLs, limited by their signatures).
    public var limitClass: RateLimitClass?
    /// Its handler starts with the caller's token (`Authenticator.caller`).
    public var needsCaller: Bool
    /// A route of the JSON/protobuf API: `Accept` is negotiated before it is answered.
    public var isAPI: Bool
    /// It may wait on object storage or disk, so it is answered on a worker thread, never on a
    /// connection's I/O thread (commit HEADs and reads objects; objects are files).
    public var waitsOnStorage: Bool
    public var cors: CORSReach
}

extension RouteKind {
    /// The one description of each route.
    public var traits: RouteTraits {
        func route(
            _ method: String, _ template: String, _ limitClass: RateLimitClass?, caller: Bool = false,
            api: Bool = false, storage: Bool = false, cors: CORSReach
        ) -> RouteTraits {
            RouteTraits(
                method: method, template: template, limitClass: limitClass, needsCaller: caller, isAPI: api,
                waitsOnStorage: storage, cors: cors)
        }
        switch self {
        case .health: return route("GET", "/healthz", nil, cors: .anonymousRead)
        case .ready: return route("GET", "/readyz", nil, cors: .anonymousRead)
        case .metrics: return route("GET", "/metrics", nil, cors: .none)
        case .postPreview:
            return route("POST", "/api/preview/post", .upload, caller: true, api: true, cors: .listedOrigins)
        case .commitPreview:
            return route(
                "POST", "/api/preview/commit", .commit, caller: true, api: true, storage: true, cors: .listedOrigins)
        case .deletePreview:
            return route("DELETE", "/api/preview/{streamId}", .write, caller: true, api: true, cors: .listedOrigins)
        case .feed: return route("GET", "/api/feed", .feed, api: true, cors: .anonymousRead)
        case .like:
            return route("POST", "/api/streams/{streamId}/like", .write, caller: true, api: true, cors: .listedOrigins)
        case .unlike:
            return route(
                "DELETE", "/api/streams/{streamId}/like", .write, caller: true, api: true, cors: .listedOrigins)
        case .markSeen:
            return route("POST", "/api/streams/{streamId}/seen", .write, caller: true, api: true, cors: .listedOrigins)
        case .objectGet: return route("GET", "/objects/{key}", nil, storage: true, cors: .anonymousRead)
        case .objectHead: return route("HEAD", "/objects/{key}", nil, storage: true, cors: .anonymousRead)
        case .objectPut: return route("PUT", "/objects/{key}", nil, storage: true, cors: .listedOrigins)
        case .objectDelete: return route("DELETE", "/objects/{key}", nil, storage: true, cors: .listedOrigins)
        // Anonymous, so an API explorer page on another origin can load it.
        case .openAPIDocument: return route("GET", "/api/openapi.yaml", nil, cors: .anonymousRead)
        // An event stream is counted once, when it opens.
        case .feedEvents: return route("GET", "/api/feed/events", .feed, cors: .anonymousRead)
        case .viewerPage: return route("GET", "/", nil, cors: .none)
        case .viewerFile: return route("GET", "/{viewer file}", nil, cors: .none)
        // A share link is an anonymous feed read (a token only names who followed it).
        case .share: return route("GET", "/s/{streamId}", .feed, cors: .none)
        case .shareThumbnail: return route("GET", "/s/{streamId}/thumbnail", .feed, cors: .none)
        case .reportPlay:
            return route("POST", "/api/streams/{streamId}/play", .write, caller: true, api: true, cors: .listedOrigins)
        case .reportShare:
            return route("POST", "/api/streams/{streamId}/share", .write, caller: true, api: true, cors: .listedOrigins)
        case .streamStats:
            return route("GET", "/api/streams/{streamId}/stats", .feed, caller: true, api: true, cors: .listedOrigins)
        case .setWatchURL:
            return route("PUT", "/api/streams/{streamId}/watch", .write, caller: true, api: true, cors: .listedOrigins)
        }
    }
}

extension Route {
    /// Which route this is, without its values.
    public var kind: RouteKind {
        switch self {
        case .health: return .health
        case .ready: return .ready
        case .metrics: return .metrics
        case .postPreview: return .postPreview
        case .commitPreview: return .commitPreview
        case .deletePreview: return .deletePreview
        case .feed: return .feed
        case .like: return .like
        case .unlike: return .unlike
        case .markSeen: return .markSeen
        case .object(.get, _): return .objectGet
        case .object(.head, _): return .objectHead
        case .object(.put, _): return .objectPut
        case .object(.delete, _): return .objectDelete
        case .openAPIDocument: return .openAPIDocument
        case .feedEvents: return .feedEvents
        case .viewerPage(.page): return .viewerPage
        case .viewerPage: return .viewerFile
        case .share: return .share
        case .shareThumbnail: return .shareThumbnail
        case .reportPlay: return .reportPlay
        case .reportShare: return .reportShare
        case .streamStats: return .streamStats
        case .setWatchURL: return .setWatchURL
        }
    }

    public var traits: RouteTraits { kind.traits }

    /// The routes a path names, whatever the method (empty for a path that names none).
    public static func kinds(path: String) -> [RouteKind] {
        guard case .success(let methods) = methods(path: path) else { return [] }
        return methods.compactMap { method in try? parse(method: method, path: path).get().kind }
    }
}

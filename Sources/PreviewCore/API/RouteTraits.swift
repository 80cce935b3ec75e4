/// What the server does around each route besides its handler, stated once per route in
/// `Route.traits` (one exhaustive switch): the rate limits, metrics, the router and the
/// HTTP threads read it from there instead of keeping a switch each.
public struct RouteTraits: Sendable, Equatable {
    /// Its label in metrics and logs: the index of its template in `RouteLabel.table`.
    public var label: Int
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
}

extension Route {
    public var traits: RouteTraits {
        func traits(
            _ label: Int, _ limitClass: RateLimitClass?, caller: Bool = false, api: Bool = false, storage: Bool = false
        ) -> RouteTraits {
            RouteTraits(label: label, limitClass: limitClass, needsCaller: caller, isAPI: api, waitsOnStorage: storage)
        }
        switch self {
        case .health: return traits(0, nil)
        case .ready: return traits(1, nil)
        case .metrics: return traits(2, nil)
        case .postPreview: return traits(3, .upload, caller: true, api: true)
        case .commitPreview: return traits(4, .commit, caller: true, api: true, storage: true)
        case .deletePreview: return traits(5, .write, caller: true, api: true)
        case .feed: return traits(6, .feed, api: true)
        case .like: return traits(7, .write, caller: true, api: true)
        case .unlike: return traits(8, .write, caller: true, api: true)
        case .markSeen: return traits(9, .write, caller: true, api: true)
        case .object(.get, _): return traits(10, nil, storage: true)
        case .object(.head, _): return traits(11, nil, storage: true)
        case .object(.put, _): return traits(12, nil, storage: true)
        case .object(.delete, _): return traits(13, nil, storage: true)
        case .openAPIDocument: return traits(14, nil)
        // An event stream is counted once, when it opens.
        case .feedEvents: return traits(15, .feed)
        case .viewerPage(.page): return traits(16, nil)
        case .viewerPage: return traits(17, nil)
        // A share link is an anonymous feed read (a token only names who followed it).
        case .share: return traits(18, .feed)
        case .shareThumbnail: return traits(19, .feed)
        case .reportPlay: return traits(20, .write, caller: true, api: true)
        case .reportShare: return traits(21, .write, caller: true, api: true)
        case .streamStats: return traits(22, .feed, caller: true, api: true)
        case .setWatchURL: return traits(23, .write, caller: true, api: true)
        }
    }
}

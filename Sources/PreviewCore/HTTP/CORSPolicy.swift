/// Which cross-origin browser requests get CORS answers (Fetch standard, "CORS protocol"), decided
/// from the configured origins and the request alone: no I/O, so preflights stay on the I/O thread.
///
/// Origins in the list are allowed on every CORS route with every method the route takes: their
/// answers echo the request's `Origin`. `*` grants what an anonymous caller may do to any origin:
/// `GET` and `HEAD` on the health checks, the anonymous feed and objects (signed URLs), without
/// `Authorization`; such answers carry `Access-Control-Allow-Origin: *`. The server never sends
/// `Access-Control-Allow-Credentials`: it uses no cookies, and a bearer token set by the page's
/// own script is not a credential in the CORS sense (the browser never attaches it by itself).
public struct CORSPolicy: Sendable, Equatable {
    /// Exact origins, serialized as browsers send them (`scheme://host[:port]`, lower case, no
    /// default port).
    public let origins: Set<String>
    /// `*` was configured: any origin may make the anonymous reads.
    public let anyOriginReads: Bool

    public init(origins: Set<String> = [], anyOriginReads: Bool = false) {
        self.origins = origins
        self.anyOriginReads = anyOriginReads
    }

    /// Seconds a browser may cache a preflight answer (Chromium caps it at 7200).
    public static let maxAgeSeconds = 600

    /// The request headers a page on a listed origin may send: the bearer token, the API's and
    /// the local store's signed `Content-Type`, conditional and ranged reads, and request IDs.
    /// `Content-Length`, the other header an upload URL may sign, is set by the browser itself
    /// and never asked for in a preflight.
    public static let allowedHeaders = ["Authorization", "Content-Type", "If-None-Match", "Range", "X-Request-Id"]
    /// The request headers of an anonymous read, which is all `*` grants.
    public static let anonymousHeaders = ["If-None-Match", "Range", "X-Request-Id"]
    /// The answer fields a page's script may read besides the CORS-safelisted ones; `Content-Range`
    /// for a player that fetches objects by ranges itself (a `<video>` needs no CORS).
    public static let exposedHeaders = [
        "ETag", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-Id", "Content-Range",
    ]
    /// The methods `*` grants.
    static let anonymousMethods = ["GET", "HEAD"]

    /// The paths that answer browsers on other origins: those of a route CORS reaches
    /// (`RouteTraits.cors`: the API, the health checks and the local store's objects; never
    /// `/metrics`, which is for scrapers), and any other path under `/api/`, so a page on another
    /// origin can read its 404 or 400.
    public static func covers(path: String) -> Bool {
        path.hasPrefix("/api/") || Route.kinds(path: path).contains { $0.traits.cors != .none }
    }

    /// The paths an anonymous caller may read, the reach of `*` (`CORSReach.anonymousRead`).
    static func isAnonymousRead(path: String) -> Bool {
        Route.kinds(path: path).contains { $0.traits.cors == .anonymousRead }
    }

    /// What `Access-Control-Allow-Origin` says to a request, if anything.
    enum Grant: Equatable {
        /// A listed origin, echoed.
        case origin(String)
        /// `*`: an anonymous read from any origin.
        case any
    }

    /// A listed origin gets every method of the route; `*` only an anonymous read (`GET` or
    /// `HEAD` of an anonymous path, without `Authorization`).
    func grant(origin: String, method: String, path: String, hasAuthorization: Bool) -> Grant? {
        if origins.contains(origin) { return .origin(origin) }
        if anyOriginReads, !hasAuthorization, Self.anonymousMethods.contains(method), Self.isAnonymousRead(path: path) {
            return .any
        }
        return nil
    }

    /// Adds the CORS fields to an answer that is not a preflight's: `Vary: Origin` on every
    /// answer of a CORS path (it depends on the request's origin), and for an allowed origin
    /// `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`, error answers included.
    /// An origin not allowed gets no CORS fields, so its browser withholds the answer.
    public func decorate(_ headers: inout HTTPHeaders, method: String, path: String, requestHeaders: HTTPHeaders) {
        guard Self.covers(path: path) else { return }
        Self.addVary(["Origin"], to: &headers)
        // A preflight's answer is whole as `preflight` made it (an allowed one has its own fields).
        guard method != "OPTIONS", let origin = requestHeaders["Origin"],
            let grant = grant(
                origin: origin, method: method, path: path, hasAuthorization: requestHeaders["Authorization"] != nil)
        else { return }
        headers.set("Access-Control-Allow-Origin", grant.allowOrigin)
        headers.set("Access-Control-Expose-Headers", Self.exposedHeaders.joined(separator: ", "))
    }

    /// The answer to an `OPTIONS` request on a CORS path whose route takes `methods`.
    public enum Preflight: Equatable, Sendable {
        /// Not a CORS preflight (no `Origin` or no `Access-Control-Request-Method`): an `OPTIONS`
        /// request answered 204 with `Allow` (RFC 9110 §9.3.7).
        case options(allow: [String])
        /// 204 with these fields.
        case allowed(HTTPHeaders)
        /// A preflight refused, with why for the log and the error body: answered 403 without
        /// CORS fields, so the browser does not send the actual request.
        case refused(String)
    }

    /// Decides a preflight: the origin must be allowed, `Access-Control-Request-Method` one the
    /// route takes (and the grant allows), and every `Access-Control-Request-Headers` name one of
    /// the grant's headers.
    public func preflight(path: String, methods: [String], requestHeaders: HTTPHeaders) -> Preflight {
        guard let origin = requestHeaders["Origin"], let method = requestHeaders["Access-Control-Request-Method"]
        else { return .options(allow: allowedMethods(methods, path: path)) }
        let asked = Self.fieldNames(requestHeaders.values("Access-Control-Request-Headers"))
        guard
            let grant = grant(
                origin: origin, method: method, path: path,
                hasAuthorization: asked.contains { HTTPHeaders.sameName($0, "Authorization") })
        else {
            let reason =
                origins.contains(origin) || !anyOriginReads ? "not allowed" : "allowed only for anonymous reads"
            return .refused("origin \(origin) is \(reason) here")
        }
        let grantedMethods = grant == .any ? methods.filter(Self.anonymousMethods.contains) : methods
        guard grantedMethods.contains(method) else {
            return .refused("method \(method) is not allowed here; use \(grantedMethods.joined(separator: ", "))")
        }
        let grantedHeaders = grant == .any ? Self.anonymousHeaders : Self.allowedHeaders
        if let other = asked.first(where: { name in !grantedHeaders.contains { HTTPHeaders.sameName($0, name) } }) {
            return .refused("request header \(other) is not allowed; use \(grantedHeaders.joined(separator: ", "))")
        }
        var headers = HTTPHeaders()
        headers.add("Access-Control-Allow-Origin", grant.allowOrigin)
        headers.add("Access-Control-Allow-Methods", grantedMethods.joined(separator: ", "))
        headers.add("Access-Control-Allow-Headers", grantedHeaders.joined(separator: ", "))
        headers.add("Access-Control-Max-Age", String(Self.maxAgeSeconds))
        headers.add("Vary", "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        return .allowed(headers)
    }

    /// The methods a 405 or an `OPTIONS` answer names in `Allow`: a CORS path also takes `OPTIONS`.
    public func allowedMethods(_ methods: [String], path: String) -> [String] {
        Self.covers(path: path) && !methods.contains("OPTIONS") ? methods + ["OPTIONS"] : methods
    }

    /// The names of a comma-separated field list (`Access-Control-Request-Headers`), trimmed,
    /// empty items dropped.
    static func fieldNames(_ values: [String]) -> [String] {
        values.flatMap { $0.split(separator: ",") }.map { $0.trimmingSpacesAndTabs() }.filter { !$0.isEmpty }
    }

    /// Appends names to the answer's `Vary` (one field, as the answer's own `Vary` may already be).
    static func addVary(_ names: [String], to headers: inout HTTPHeaders) {
        let present = fieldNames(headers.values("Vary"))
        let missing = names.filter { name in !present.contains { HTTPHeaders.sameName($0, name) } }
        guard !missing.isEmpty else { return }
        headers.set("Vary", (present + missing).joined(separator: ", "))
    }
}

extension CORSPolicy.Grant {
    var allowOrigin: String {
        switch self {
        case .origin(let origin): return origin
        case .any: return "*"
        }
    }
}

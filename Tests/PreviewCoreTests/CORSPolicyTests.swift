import PreviewCore
import Testing

@Suite("CORS: configured origins, answers and preflights")
struct CORSPolicyTests {
    static let page = "http://127.0.0.1:8000"
    let listed = CORSPolicy(origins: [page])
    let anyone = CORSPolicy(anyOriginReads: true)

    private func decorated(
        _ policy: CORSPolicy, _ method: String, _ path: String, _ request: [(String, String)],
        answer: [(String, String)] = []
    ) -> HTTPHeaders {
        var headers = HTTPHeaders(answer)
        policy.decorate(&headers, method: method, path: path, requestHeaders: HTTPHeaders(request))
        return headers
    }

    private func preflight(
        _ policy: CORSPolicy, _ path: String, methods: [String], origin: String = page, method: String,
        headers: String? = nil
    ) -> CORSPolicy.Preflight {
        var request = HTTPHeaders([("Origin", origin), ("Access-Control-Request-Method", method)])
        if let headers { request.add("Access-Control-Request-Headers", headers) }
        return policy.preflight(path: path, methods: methods, requestHeaders: request)
    }

    // MARK: Configuration

    @Test(
        "configured origins are kept as browsers serialize them",
        arguments: [
            ("http://127.0.0.1:8000", "http://127.0.0.1:8000"), ("HTTPS://App.Example.COM", "https://app.example.com"),
            ("https://app.example:443", "https://app.example"), ("http://app.example:80", "http://app.example"),
            ("http://app.example:443", "http://app.example:443"), ("http://[::1]:8000", "http://[::1]:8000"),
            ("https://xn--bcher-kva.example", "https://xn--bcher-kva.example"), ("http://a:08080", "http://a:8080"),
        ])
    func originsAreSerialized(_ configured: String, _ serialized: String) throws {
        let policy = try #require(try CORSPolicy.parse(configured).get())
        #expect(policy.origins == [serialized])
        #expect(!policy.anyOriginReads)
    }

    @Test("a list holds origins and * together; spaces around items are dropped")
    func listsMixOriginsAndStar() throws {
        let policy = try #require(try CORSPolicy.parse("https://a.example, * ,http://b.example:81").get())
        #expect(policy.origins == ["https://a.example", "http://b.example:81"])
        #expect(policy.anyOriginReads)
    }

    @Test("an empty list is no CORS at all")
    func emptyListIsNoCORS() throws {
        #expect(try CORSPolicy.parse("").get() == nil)
        #expect(try CORSPolicy.parse("  ").get() == nil)
    }

    @Test(
        "anything but scheme://host[:port] with http or https is refused",
        arguments: [
            "null", "app.example", "ftp://app.example", "https://app.example/", "https://app.example/x",
            "https://app.example?x", "https://user@app.example", "https://", "https://:80", "https://a:0",
            "https://a:65536", "https://a:", "https://a:+1", "http://[::1", "http://[]:80", "http://[::1]x",
            "https://bücher.example", "a,,b", "https://a.example,", "*.example.com",
        ])
    func malformedOriginsAreRefused(_ text: String) {
        #expect(throws: CORSPolicy.ConfigError.self) { try CORSPolicy.parse(text).get() }
    }

    // MARK: Actual answers

    @Test("a listed origin's answer echoes it, exposes the API's fields and varies on Origin")
    func listedOriginGetsTheFields() {
        let headers = decorated(listed, "POST", "/api/preview/post", [("Origin", Self.page)])
        #expect(headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(
            headers["Access-Control-Expose-Headers"]
                == "ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Content-Range")
        #expect(headers["Vary"] == "Origin")
        #expect(headers["Access-Control-Allow-Credentials"] == nil)
    }

    @Test(
        "an origin that is not listed exactly gets no CORS fields, only Vary",
        arguments: [
            "http://127.0.0.1:8001", "http://localhost:8000", "https://127.0.0.1:8000", "null", "HTTP://127.0.0.1:8000",
        ])
    func unlistedOriginGetsNothing(_ origin: String) {
        let headers = decorated(listed, "GET", "/api/feed", [("Origin", origin)])
        #expect(headers["Access-Control-Allow-Origin"] == nil)
        #expect(headers["Access-Control-Expose-Headers"] == nil)
        #expect(headers["Vary"] == "Origin")
    }

    @Test("a request without Origin gets only Vary, since the answer to one with it differs")
    func noOriginGetsOnlyVary() {
        let headers = decorated(listed, "GET", "/api/feed", [])
        #expect(headers.fields.map(\.name) == ["Vary"])
    }

    @Test("Origin joins the answer's own Vary in the same field, once")
    func varyIsMerged() {
        let headers = decorated(
            listed, "GET", "/api/feed", [("Origin", Self.page)], answer: [("Vary", "Accept, Authorization")])
        #expect(headers.values("Vary") == ["Accept, Authorization, Origin"])
        let again = decorated(listed, "GET", "/api/feed", [], answer: [("Vary", "accept, origin")])
        #expect(again.values("Vary") == ["accept, origin"])
    }

    @Test("paths that are not for pages get nothing", arguments: ["/metrics", "/", "/apix", "/healthzz"])
    func otherPathsGetNothing(_ path: String) {
        #expect(decorated(listed, "GET", path, [("Origin", Self.page)]).fields.isEmpty)
    }

    @Test(
        "* gives any origin Allow-Origin * on anonymous reads",
        arguments: [
            ("GET", "/api/feed"), ("GET", "/healthz"), ("GET", "/readyz"), ("HEAD", "/objects/previews/1/a.mp4"),
            ("GET", "/api/openapi.yaml"),
        ])
    func starCoversAnonymousReads(_ method: String, _ path: String) {
        let headers = decorated(anyone, method, path, [("Origin", "https://elsewhere.example")])
        #expect(headers["Access-Control-Allow-Origin"] == "*")
        #expect(headers["Access-Control-Expose-Headers"] != nil)
    }

    @Test(
        "* does not cover writes, or reads with a bearer token",
        arguments: [
            ("POST", "/api/preview/post", false), ("PUT", "/objects/previews/1/a.mp4", false),
            ("DELETE", "/objects/previews/1/a.mp4", false), ("POST", "/api/streams/1/like", false),
            ("GET", "/api/feed", true),
        ])
    func starDoesNotCoverTheRest(_ method: String, _ path: String, _ withToken: Bool) {
        var request = [("Origin", "https://elsewhere.example")]
        if withToken { request.append(("Authorization", "Bearer x")) }
        #expect(decorated(anyone, method, path, request)["Access-Control-Allow-Origin"] == nil)
    }

    @Test("a listed origin is echoed even when * is configured too")
    func listedOriginBeatsStar() {
        let both = CORSPolicy(origins: [Self.page], anyOriginReads: true)
        let headers = decorated(both, "GET", "/api/feed", [("Origin", Self.page), ("Authorization", "Bearer x")])
        #expect(headers["Access-Control-Allow-Origin"] == Self.page)
    }

    @Test("an OPTIONS answer is left as the preflight made it, but for Vary")
    func optionsAnswersAreNotDecorated() {
        let headers = decorated(listed, "OPTIONS", "/api/feed", [("Origin", Self.page)])
        #expect(headers.fields.map(\.name) == ["Vary"])
    }

    // MARK: Preflights

    @Test("an allowed preflight names the origin, the route's methods, the headers and a max age")
    func allowedPreflight() throws {
        let answer = preflight(
            listed, "/api/streams/1/like", methods: ["POST", "DELETE"], method: "DELETE",
            headers: "authorization,content-type")
        let headers = try #require(answer.allowedHeaders, "\(answer)")
        #expect(headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(headers["Access-Control-Allow-Methods"] == "POST, DELETE")
        #expect(
            headers["Access-Control-Allow-Headers"] == "Authorization, Content-Type, If-None-Match, Range, X-Request-Id"
        )
        #expect(headers["Access-Control-Max-Age"] == "600")
        #expect(headers["Vary"] == "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        #expect(headers["Access-Control-Allow-Credentials"] == nil)
    }

    @Test("request header names are compared without case and around spaces, in one field or several")
    func requestHeadersAreListParsed() {
        var request = HTTPHeaders([("Origin", Self.page), ("Access-Control-Request-Method", "PUT")])
        request.add("Access-Control-Request-Headers", " Content-Type , ,X-REQUEST-ID")
        request.add("Access-Control-Request-Headers", "if-none-match")
        let answer = listed.preflight(
            path: "/objects/k", methods: ["GET", "HEAD", "PUT", "DELETE"], requestHeaders: request)
        #expect(answer.allowedHeaders != nil, "\(answer)")
    }

    @Test("a preflight from an origin that is not listed is refused")
    func unlistedOriginIsRefused() {
        #expect(
            preflight(listed, "/api/feed", methods: ["GET"], origin: "http://127.0.0.1:8001", method: "GET")
                == .refused("origin http://127.0.0.1:8001 is not allowed here"))
    }

    @Test("a preflight for a method the route does not take is refused")
    func otherMethodIsRefused() {
        #expect(
            preflight(listed, "/api/feed", methods: ["GET"], method: "POST")
                == .refused("method POST is not allowed here; use GET"))
        // Methods are case-sensitive (RFC 9110 §9.1); browsers upper-case the standard ones.
        #expect(
            preflight(listed, "/api/feed", methods: ["GET"], method: "get")
                == .refused("method get is not allowed here; use GET"))
    }

    @Test("a preflight asking for a header not on the list is refused")
    func otherHeaderIsRefused() {
        #expect(
            preflight(listed, "/api/preview/post", methods: ["POST"], method: "POST", headers: "content-type,x-debug")
                == .refused(
                    "request header x-debug is not allowed; use Authorization, Content-Type, If-None-Match, Range, X-Request-Id"
                ))
    }

    @Test("* answers an anonymous read's preflight with * and only GET and HEAD")
    func starPreflight() throws {
        let answer = preflight(
            anyone, "/objects/k", methods: ["GET", "HEAD", "PUT", "DELETE"], origin: "https://x.example", method: "GET",
            headers: "range")
        let headers = try #require(answer.allowedHeaders, "\(answer)")
        #expect(headers["Access-Control-Allow-Origin"] == "*")
        #expect(headers["Access-Control-Allow-Methods"] == "GET, HEAD")
        #expect(headers["Access-Control-Allow-Headers"] == "If-None-Match, Range, X-Request-Id")
    }

    @Test("* refuses the preflight of a write, of a token-bearing read, and of a method the grant lacks")
    func starRefusesTheRest() {
        #expect(
            preflight(anyone, "/api/preview/post", methods: ["POST"], origin: "https://x.example", method: "POST")
                == .refused("origin https://x.example is allowed only for anonymous reads here"))
        #expect(
            preflight(
                anyone, "/api/feed", methods: ["GET"], origin: "https://x.example", method: "GET",
                headers: "authorization")
                == .refused("origin https://x.example is allowed only for anonymous reads here"))
        #expect(
            preflight(
                anyone, "/objects/k", methods: ["GET", "HEAD", "PUT", "DELETE"], origin: "https://x.example",
                method: "PUT") == .refused("origin https://x.example is allowed only for anonymous reads here"))
        #expect(
            preflight(
                anyone, "/api/feed", methods: ["GET"], origin: "https://x.example", method: "GET",
                headers: "content-type")
                == .refused("request header content-type is not allowed; use If-None-Match, Range, X-Request-Id"))
    }

    @Test("an OPTIONS request that is not a preflight is answered with Allow, OPTIONS included")
    func plainOptions() {
        let noMethod = HTTPHeaders([("Origin", Self.page)])
        #expect(
            listed.preflight(path: "/api/feed", methods: ["GET"], requestHeaders: noMethod)
                == .options(allow: ["GET", "OPTIONS"]))
        let noOrigin = HTTPHeaders([("Access-Control-Request-Method", "GET")])
        #expect(
            listed.preflight(path: "/api/feed", methods: ["GET"], requestHeaders: noOrigin)
                == .options(allow: ["GET", "OPTIONS"]))
    }

    @Test("Allow names OPTIONS on CORS paths only")
    func allowNamesOptions() {
        #expect(listed.allowedMethods(["GET"], path: "/api/feed") == ["GET", "OPTIONS"])
        #expect(listed.allowedMethods(["GET"], path: "/metrics") == ["GET"])
    }

    @Test("CORS covers the API, the health checks and objects")
    func coveredPaths() {
        for path in ["/api/feed", "/api/preview/1", "/objects/a/b", "/healthz", "/readyz"] {
            #expect(CORSPolicy.covers(path: path), "\(path)")
        }
        for path in ["/metrics", "/", "/api", "/objects", "/healthz/"] {
            #expect(!CORSPolicy.covers(path: path), "\(path)")
        }
    }
}

extension CORSPolicy.Preflight {
    /// The fields of an allowed preflight; nil for any other answer.
    var allowedHeaders: HTTPHeaders? {
        if case .allowed(let headers) = self { return headers }
        return nil
    }
}

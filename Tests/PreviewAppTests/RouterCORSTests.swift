import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("CORS through the router: preflights without a token, fields on every answer")
struct RouterCORSTests {
    static let page = "http://127.0.0.1:8000"
    static let listed = CORSPolicy(origins: [page])

    private func preflight(
        _ app: AppHarness, _ path: String, method: String, origin: String = page,
        headers: String = "authorization,content-type"
    ) -> HTTPResponse {
        app.send(
            "OPTIONS", path,
            headers: [
                ("Origin", origin), ("Access-Control-Request-Method", method),
                ("Access-Control-Request-Headers", headers),
            ])
    }

    @Test(
        "a preflight on every API route and on objects is 204 with the CORS fields, without a token",
        arguments: [
            ("/api/preview/post", "POST", "POST"), ("/api/preview/commit", "POST", "POST"),
            ("/api/preview/42", "DELETE", "DELETE"), ("/api/feed", "GET", "GET"),
            ("/api/streams/42/like", "POST", "POST, DELETE"), ("/api/streams/42/like", "DELETE", "POST, DELETE"),
            ("/api/streams/42/seen", "POST", "POST"), ("/healthz", "GET", "GET"), ("/readyz", "GET", "GET"),
            ("/objects/previews/42/a/movie.mp4?X-Amz-Signature=x", "PUT", "GET, HEAD, PUT, DELETE"),
            ("/objects/previews/42/a/movie.mp4", "GET", "GET, HEAD, PUT, DELETE"),
        ])
    func preflightOnEveryRoute(_ path: String, _ method: String, _ methods: String) throws {
        let app = try AppHarness(cors: Self.listed)
        let response = preflight(app, path, method: method)
        #expect(response.status == 204, "\(response.text)")
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(response.headers["Access-Control-Allow-Methods"] == methods)
        #expect(
            response.headers["Access-Control-Allow-Headers"]
                == "Authorization, Content-Type, If-None-Match, Range, X-Request-Id")
        #expect(response.headers["Access-Control-Max-Age"] == "600")
        #expect(
            response.headers["Vary"] == "Origin, Access-Control-Request-Method, Access-Control-Request-Headers")
        #expect(response.bytes.isEmpty)
    }

    @Test("a preflight from an origin that is not listed is 403 without CORS fields")
    func unlistedPreflightIsRefused() throws {
        let app = try AppHarness(cors: Self.listed)
        let response = preflight(app, "/api/preview/post", method: "POST", origin: "http://127.0.0.1:8001")
        #expect(response.status == 403)
        #expect(response.errorCode == "forbidden")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Access-Control-Allow-Methods"] == nil)
        #expect(response.headers["Vary"]?.contains("Origin") == true)
    }

    @Test("a preflight for a method the route does not take, or a header not on the list, is 403 without CORS fields")
    func badPreflightIsRefused() throws {
        let app = try AppHarness(cors: Self.listed)
        for response in [
            preflight(app, "/api/feed", method: "POST"),
            preflight(app, "/api/preview/post", method: "POST", headers: "content-type,x-custom"),
        ] {
            #expect(response.status == 403, "\(response.text)")
            #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        }
    }

    @Test("a preflight on an unknown API path is 404")
    func unknownPathPreflightIsNotFound() throws {
        let app = try AppHarness(cors: Self.listed)
        #expect(preflight(app, "/api/nothing", method: "GET").status == 404)
    }

    @Test("an OPTIONS request that is not a preflight is 204 with Allow naming OPTIONS")
    func plainOptionsNamesMethods() throws {
        let app = try AppHarness(cors: Self.listed)
        let response = app.send("OPTIONS", "/api/streams/42/like")
        #expect(response.status == 204)
        #expect(response.headers["Allow"] == "POST, DELETE, OPTIONS")
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
    }

    @Test("the feed's answer to a listed origin carries Allow-Origin, Expose-Headers and Vary with Origin")
    func feedAnswerCarriesTheFields() throws {
        let app = try AppHarness(cors: Self.listed)
        let response = app.send("GET", "/api/feed", headers: [("Origin", Self.page)])
        #expect(response.status == 200)
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(
            response.headers["Access-Control-Expose-Headers"]
                == "ETag, Retry-After, RateLimit, RateLimit-Policy, X-Request-Id, Content-Range")
        #expect(response.headers.values("Vary") == ["Accept, Authorization, Origin"])
        #expect(response.headers["ETag"] != nil)
    }

    @Test("a whole upload from a listed origin gets the CORS fields on every answer, object PUTs included")
    func uploadAnswersCarryTheFields() throws {
        let app = try AppHarness(cors: Self.listed)
        let origin = [("Origin", Self.page)]
        let streamer = app.token("s", .streamer, streams: [7])
        let posted = app.send(
            "POST", "/api/preview/post", token: streamer,
            json: #"{"streamId":"7","movieBytes":\#(TestClips.mp4.count),"thumbnailBytes":\#(TestClips.jpeg.count)}"#,
            headers: origin)
        try #require(posted.status == 200, "\(posted.text)")
        #expect(posted.headers["Access-Control-Allow-Origin"] == Self.page)
        let issued = try StreamPreviewPostResponse(json: posted.bytes)
        let put = app.send(
            "PUT", app.pathAndQuery(issued.movieBodyUrl), body: TestClips.mp4,
            headers: issued.movieHeaders.map { ($0.key, $0.value) } + [("Host", "127.0.0.1:9")] + origin)
        #expect(put.status == 200, "\(put.text)")
        #expect(put.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(put.headers["X-Content-Type-Options"] == "nosniff")
        let get = app.send("GET", app.pathAndQuery(issued.movieBodyUrl), headers: origin)
        #expect(get.headers["Access-Control-Allow-Origin"] == Self.page)
    }

    @Test("every header an upload URL of the local store requires is allowed, or set by the browser itself")
    func signedUploadHeadersAreAllowed() throws {
        let app = try AppHarness(cors: Self.listed)
        let streamer = app.token("s", .streamer, streams: [7])
        let posted = app.send(
            "POST", "/api/preview/post", token: streamer,
            json: #"{"streamId":"7","movieBytes":100,"thumbnailBytes":20,"thumbnailContentType":"image/png"}"#)
        try #require(posted.status == 200, "\(posted.text)")
        let issued = try StreamPreviewPostResponse(json: posted.bytes)
        let names = Set(issued.movieHeaders.keys).union(issued.thumbnailHeaders.keys)
        #expect(names.contains("Content-Type"))
        // Content-Length is a forbidden request header: the browser sets it from the body.
        for name in names where name != "Content-Length" {
            #expect(CORSPolicy.allowedHeaders.contains { HTTPHeaders.sameName($0, name) }, "\(name)")
        }
    }

    @Test(
        "error answers to a listed origin carry the fields: 401 refused on the head, 405, 404, 400",
        arguments: [
            ("POST", "/api/preview/post", 401), ("PATCH", "/api/feed", 405), ("GET", "/api/nothing", 404),
            ("POST", "/api/streams/x/seen", 400),
        ])
    func errorAnswersCarryTheFields(_ method: String, _ path: String, _ status: Int) throws {
        let app = try AppHarness(cors: Self.listed)
        let response = app.send(method, path, json: #"{"streamId":"7"}"#, headers: [("Origin", Self.page)])
        #expect(response.status == status, "\(response.text)")
        #expect(response.headers["Access-Control-Allow-Origin"] == Self.page)
        #expect(response.headers["Access-Control-Expose-Headers"]?.contains("X-Request-Id") == true)
        #expect(response.headers["Vary"]?.contains("Origin") == true)
    }

    @Test("a 405 on a CORS path names OPTIONS in Allow when CORS is on")
    func notAllowedNamesOptions() throws {
        let app = try AppHarness(cors: Self.listed)
        #expect(app.send("PATCH", "/api/feed").headers["Allow"] == "GET, OPTIONS")
        #expect(app.send("POST", "/metrics").headers["Allow"] == "GET")
    }

    @Test("an origin that is not listed gets no CORS fields on actual answers")
    func unlistedOriginGetsNothing() throws {
        let app = try AppHarness(cors: Self.listed)
        let response = app.send("GET", "/api/feed", headers: [("Origin", "http://127.0.0.1:8001")])
        #expect(response.status == 200)
        #expect(response.headers["Access-Control-Allow-Origin"] == nil)
        #expect(response.headers["Access-Control-Expose-Headers"] == nil)
        #expect(response.headers.values("Vary") == ["Accept, Authorization, Origin"])
    }

    @Test("without an origin list there is no CORS: OPTIONS is 405 with Allow, answers carry no CORS fields")
    func noListNoCORS() throws {
        let app = try AppHarness()
        let options = preflight(app, "/api/feed", method: "GET")
        #expect(options.status == 405)
        #expect(options.headers["Allow"] == "GET")
        #expect(options.headers["Access-Control-Allow-Origin"] == nil)
        let feed = app.send("GET", "/api/feed", headers: [("Origin", Self.page)])
        #expect(feed.headers["Access-Control-Allow-Origin"] == nil)
        #expect(feed.headers.values("Vary") == ["Accept, Authorization"])
    }

    @Test("with * any origin reads the anonymous feed with Allow-Origin *, and may not upload")
    func starAllowsAnonymousReadsOnly() throws {
        let app = try AppHarness(cors: CORSPolicy(anyOriginReads: true))
        let elsewhere = "https://elsewhere.example"
        let feed = app.send("GET", "/api/feed", headers: [("Origin", elsewhere)])
        #expect(feed.headers["Access-Control-Allow-Origin"] == "*")
        let readPreflight = preflight(app, "/api/feed", method: "GET", origin: elsewhere, headers: "if-none-match")
        #expect(readPreflight.status == 204)
        #expect(readPreflight.headers["Access-Control-Allow-Origin"] == "*")
        let tokenPreflight = preflight(app, "/api/feed", method: "GET", origin: elsewhere, headers: "authorization")
        #expect(tokenPreflight.status == 403)
        let uploadPreflight = preflight(app, "/api/preview/post", method: "POST", origin: elsewhere)
        #expect(uploadPreflight.status == 403)
        #expect(uploadPreflight.headers["Access-Control-Allow-Origin"] == nil)
        let viewer = app.send(
            "GET", "/api/feed", token: app.token("v", .viewer), headers: [("Origin", elsewhere)])
        #expect(viewer.status == 200)
        #expect(viewer.headers["Access-Control-Allow-Origin"] == nil)
    }
}

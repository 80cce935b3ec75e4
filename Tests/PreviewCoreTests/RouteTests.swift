import PreviewCore
import Testing

@Suite struct RouteTests {
    @Test(arguments: [
        ("GET", "/healthz", Route.health),
        ("GET", "/metrics", Route.metrics),
        ("GET", "/readyz", .ready),
        ("POST", "/api/preview/post", .postPreview),
        ("POST", "/api/preview/commit", .commitPreview),
        ("DELETE", "/api/preview/42", .deletePreview(streamId: 42)),
        ("GET", "/api/feed", .feed),
        ("GET", "/api/openapi.yaml", .openAPIDocument),
        ("POST", "/api/streams/7/like", .like(streamId: 7)),
        ("DELETE", "/api/streams/7/like", .unlike(streamId: 7)),
        ("POST", "/api/streams/9223372036854775807/seen", .markSeen(streamId: Int64.max)),
        ("PUT", "/objects/previews/1/a/movie.mp4", .object(method: .put, encodedKey: "previews/1/a/movie.mp4")),
        ("HEAD", "/objects/a%20b", .object(method: .head, encodedKey: "a%20b")),
        ("DELETE", "/objects/k", .object(method: .delete, encodedKey: "k")),
        ("GET", "/api/feed/events", .feedEvents),
        ("GET", "/", .viewerPage(.page)),
        ("GET", "/viewer.js", .viewerPage(.script)),
        ("GET", "/viewer.css", .viewerPage(.style)),
        ("GET", "/favicon.ico", .viewerPage(.icon)),
        ("GET", "/s/41", .share(streamId: 41)),
        ("GET", "/s/41/thumbnail", .shareThumbnail(streamId: 41)),
    ])
    func knownRoutesParse(method: String, path: String, route: Route) {
        #expect(Route.parse(method: method, path: path) == .success(route))
    }

    @Test func unknownPathsAreNotFound() {
        for path in [
            "//", "/s", "/s/1/x", "/viewer.html", "/api", "/api/feed/x", "/api/streams/1", "healthz", "/api//feed",
            "/api/preview/1/x",
        ] {
            #expect(Route.parse(method: "GET", path: path) == .failure(.notFound), "\(path)")
        }
    }

    @Test func knownPathsWithAnotherMethodAreNotAllowed() {
        #expect(Route.parse(method: "GET", path: "/api/preview/post") == .failure(.methodNotAllowed(allowed: ["POST"])))
        #expect(
            Route.parse(method: "PUT", path: "/api/streams/1/like")
                == .failure(.methodNotAllowed(allowed: ["POST", "DELETE"])))
        #expect(
            Route.parse(method: "POST", path: "/objects/x")
                == .failure(.methodNotAllowed(allowed: ["GET", "HEAD", "PUT", "DELETE"])))
        #expect(RouteError.methodNotAllowed(allowed: ["POST"]).apiError.status == 405)
    }

    @Test func pathsNameTheirMethodsForPreflights() {
        #expect(Route.methods(path: "/api/feed") == .success(["GET"]))
        #expect(Route.methods(path: "/api/streams/1/like") == .success(["POST", "DELETE"]))
        #expect(Route.methods(path: "/objects/a/b") == .success(["GET", "HEAD", "PUT", "DELETE"]))
        #expect(Route.methods(path: "/api/nothing") == .failure(.notFound))
        #expect(Route.methods(path: "/api/preview/x") == .failure(.badStreamID("x")))
    }

    @Test(arguments: [
        ("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("POST", "/api/preview/post"),
        ("POST", "/api/preview/commit"), ("DELETE", "/api/preview/42"), ("GET", "/api/feed"),
        ("POST", "/api/streams/7/like"), ("DELETE", "/api/streams/7/like"), ("POST", "/api/streams/7/seen"),
        ("PUT", "/objects/k"), ("GET", "/objects/k"), ("HEAD", "/objects/k"), ("DELETE", "/objects/k"),
    ])
    func everyRouteMethodIsNamedForItsPath(method: String, path: String) throws {
        #expect(try Route.methods(path: path).get().contains(method))
    }

    @Test func streamIDsMustBePositiveInt64s() {
        for bad in ["0", "-1", "abc", "1.5", "+1", "9223372036854775808", "", "01x", "007", "01"] {
            #expect(
                Route.parse(method: "POST", path: "/api/streams/\(bad)/like") == .failure(.badStreamID(bad)), "\(bad)")
        }
        #expect(RouteError.badStreamID("x").apiError.code == .invalidArgument)
    }
}

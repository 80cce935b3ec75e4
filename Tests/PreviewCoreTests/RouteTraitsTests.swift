import Testing

@testable import PreviewCore

/// `RouteKind.traits` describes each route once: its template and method must parse back to that
/// route, and the metrics labels, the limiter, the router and CORS read it from there.
@Suite("Route traits")
struct RouteTraitsTests {
    @Test("every route's template and method parse to that route, which names its own metrics label")
    func templatesParseToTheirRoutes() throws {
        #expect(RouteLabel.table.count == RouteKind.allCases.count + RouteLabel.otherMethods.count)
        for kind in RouteKind.allCases {
            let traits = kind.traits
            let path = traits.template.replacingOccurrences(of: "{streamId}", with: "7")
                .replacingOccurrences(of: "{key}", with: "a/b.mp4")
                .replacingOccurrences(of: "/{viewer file}", with: "/viewer.js")
            let route = try Route.parse(method: traits.method, path: path).get()
            #expect(route.kind == kind, "\(traits.method) \(traits.template)")
            #expect(RouteLabel(route) == RouteLabel.all[kind.rawValue])
            #expect(RouteLabel(route).route == traits.template && RouteLabel(route).method == traits.method)
            #expect(Route.kinds(path: path).contains(kind), "\(path)")
        }
    }

    @Test("a path of one route refuses every other method with that route's method in Allow")
    func oneMethodPerPath() {
        #expect(Route.parse(method: "POST", path: "/api/feed") == .failure(.methodNotAllowed(allowed: ["GET"])))
        #expect(
            Route.parse(method: "GET", path: "/api/streams/7/watch") == .failure(.methodNotAllowed(allowed: ["PUT"])))
        #expect(Route.kinds(path: "/api/streams/7/like") == [.like, .unlike])
        #expect(Route.kinds(path: "/api/nothing").isEmpty)
    }

    @Test("only the routes that wait on storage leave the I/O threads; the API routes negotiate; tokens where needed")
    func traitsOfSomeRoutes() {
        #expect(Route.commitPreview.traits.waitsOnStorage)
        #expect(Route.object(method: .put, encodedKey: "k").traits.waitsOnStorage)
        #expect(!Route.feed.traits.waitsOnStorage)
        #expect(Route.feed.traits.isAPI && !Route.feed.traits.needsCaller)
        #expect(!Route.feedEvents.traits.isAPI && Route.feedEvents.traits.limitClass == .feed)
        #expect(Route.streamStats(streamId: 1).traits.needsCaller)
        #expect(
            Route.share(streamId: 1).traits
                == RouteTraits(
                    method: "GET", template: "/s/{streamId}", limitClass: .feed, needsCaller: false, isAPI: false,
                    waitsOnStorage: false, cors: .none))
    }

    @Test("CORS reaches what the routes say: anonymous reads, listed origins, or nothing")
    func corsReach() {
        for path in ["/api/feed", "/api/feed/events", "/api/openapi.yaml", "/healthz", "/readyz", "/objects/a/b"] {
            #expect(CORSPolicy.isAnonymousRead(path: path), "\(path)")
        }
        for path in ["/api/preview/post", "/api/streams/1/like", "/metrics", "/s/1", "/", "/api/feedx"] {
            #expect(!CORSPolicy.isAnonymousRead(path: path), "\(path)")
        }
        #expect(!CORSPolicy.covers(path: "/s/1") && !CORSPolicy.covers(path: "/viewer.js"))
        #expect(CORSPolicy.covers(path: "/api/streams/1/watch") && CORSPolicy.covers(path: "/api/unknown"))
    }
}

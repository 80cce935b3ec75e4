import Testing

@testable import PreviewCore

/// `Route.traits` states each route's label, limit class, auth, API and thread once: the label it
/// gives must be the template the route parses from, for every route of the table.
@Suite("Route traits")
struct RouteTraitsTests {
    @Test("every metrics label's template and method parse to a route that names that label")
    func labelsMatchTheirRoutes() throws {
        let routes = RouteLabel.table.count - RouteLabel.otherMethods.count
        for index in 0..<routes {
            let (template, method) = RouteLabel.table[index]
            let path = template.replacingOccurrences(of: "{streamId}", with: "7")
                .replacingOccurrences(of: "{key}", with: "a/b.mp4")
                .replacingOccurrences(of: "/{viewer file}", with: "/viewer.js")
            let route = try Route.parse(method: method, path: path).get()
            #expect(route.traits.label == index, "\(method) \(template)")
            #expect(RouteLabel(route) == RouteLabel.all[index])
        }
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
                    label: 18, limitClass: .feed, needsCaller: false, isAPI: false, waitsOnStorage: false))
    }
}

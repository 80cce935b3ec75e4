import Dispatch
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// A flood of scrapes renders the metrics page once a second, not once a scrape.
@Suite struct MetricsPageCacheTests {
    @Test func scrapesWithinASecondShareOneRenderAndTheNextSecondRendersAgain() throws {
        let harness = try AppHarness()
        let router = harness.router
        let handler = try #require(router.metrics)
        @Sendable func scrape() -> HTTPResponse {
            router.respond(to: HTTPRequest(method: "GET", path: "/metrics", rawQuery: "", remoteAddress: "127.0.0.1"))
        }
        let first = scrape()
        #expect(first.status == 200)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in _ = scrape() }
        #expect(scrape().body == first.body)
        #expect(handler.page.renders == 1)
        #expect(harness.send("GET", "/healthz").status == 200)
        harness.clock.advance(milliseconds: 1000)
        let later = scrape()
        #expect(handler.page.renders == 2)
        // The healthz just sent shows in the new page, not in the held one.
        let text = String(decoding: later.bytes, as: UTF8.self)
        #expect(text.contains(#"route="/healthz""#))
        #expect(!String(decoding: first.bytes, as: UTF8.self).contains(#"route="/healthz""#))
    }

    @Test func aClockThatGoesBackRendersAgainRatherThanServingAPageFromTheFuture() {
        let page = RenderedPage(maxAgeMilliseconds: 1000)
        #expect(page.bytes(nowMilliseconds: 5000) { [1] } == [1])
        #expect(page.bytes(nowMilliseconds: 5999) { [2] } == [1])
        #expect(page.bytes(nowMilliseconds: 4000) { [3] } == [3])
        #expect(page.renders == 2)
    }
}

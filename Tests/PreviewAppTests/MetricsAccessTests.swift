import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Who may scrape `/metrics`, decided on the request as the router sees it.
@Suite struct MetricsAccessTests {
    let token = Array("a-scrape-token-of-32-characters!".utf8)

    @Test func thePublicPortAnswersAClientOnThisMachineAndRefusesOthersWithForbidden() throws {
        let harness = try AppHarness()
        #expect(harness.send("GET", "/metrics", from: "127.0.0.1").status == 200)
        #expect(harness.send("GET", "/metrics", from: "::1").status == 200)
        #expect(harness.send("GET", "/metrics", from: "::ffff:127.0.0.2").status == 200)
        let remote = harness.send("GET", "/metrics", from: "203.0.113.9")
        #expect(remote.status == 403)
        #expect(remote.errorCode == "forbidden")
        let proxied = harness.send("GET", "/metrics", headers: [("X-Forwarded-For", "203.0.113.9")], from: "127.0.0.1")
        #expect(proxied.status == 403, "a proxy on this machine forwards strangers")
        #expect(harness.send("GET", "/metrics", from: "128.0.0.1").status == 403)
        #expect(harness.send("GET", "/metrics", from: "1127.0.0.1").status == 403)
    }

    @Test func theMetricsTokenLetsAnyAddressScrapeAndAWrongOneIsUnauthenticated() throws {
        let harness = try AppHarness()
        harness.context.metricsToken = token
        let router = Router(context: harness.context)
        func scrape(_ authorization: String?, from address: String) -> HTTPResponse {
            var request = HTTPRequest(method: "GET", path: "/metrics", rawQuery: "", remoteAddress: address)
            if let authorization { request.headers.add("Authorization", authorization) }
            return router.respond(to: request)
        }
        #expect(scrape("Bearer a-scrape-token-of-32-characters!", from: "203.0.113.9").status == 200)
        let wrong = scrape("Bearer a-scrape-token-of-32-characters?", from: "203.0.113.9")
        #expect(wrong.status == 401)
        #expect(wrong.errorCode == "unauthenticated")
        #expect(scrape("Bearer a-scrape-token-of-32-characters?", from: "127.0.0.1").status == 401)
        #expect(scrape(nil, from: "203.0.113.9").status == 401)
        #expect(scrape(nil, from: "127.0.0.1").status == 200)
    }

    @Test func aDedicatedListenerAnswersAnyoneUnlessATokenIsSet() throws {
        let crypto = OpenSSLCrypto()
        let remote = HTTPRequest(method: "GET", path: "/metrics", rawQuery: "", remoteAddress: "203.0.113.9")
        #expect(MetricsAccess(dedicatedListener: true).refusal(remote, crypto: crypto) == nil)
        let guarded = MetricsAccess(token: token, dedicatedListener: true)
        #expect(guarded.refusal(remote, crypto: crypto)?.code == .unauthenticated)
        var local = remote
        local.remoteAddress = "127.0.0.1"
        #expect(guarded.refusal(local, crypto: crypto)?.code == .unauthenticated, "the token is required there")
        var authorized = remote
        authorized.headers.add("Authorization", "bearer a-scrape-token-of-32-characters!")
        #expect(guarded.refusal(authorized, crypto: crypto) == nil)
    }

    @Test func aScrapeIsAnsweredOnTheIOThreadLikeHealthzSinceItsPageIsRenderedOnceAPeriod() {
        #expect(Router.thread(for: .metrics) == .connection)
    }
}

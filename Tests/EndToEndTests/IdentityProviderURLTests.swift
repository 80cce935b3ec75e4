import Foundation
import PreviewTestSupport
import Synchronization
import Testing

/// `--jwks-url`: the provider's keys fetched from a loopback JWKS server that answers well,
/// slowly, with garbage or not at all; the last good keys kept, failures counted, /readyz 503
/// only before the first good fetch, unknown kids refetched once the keys are 10 s old.
@Suite("Identity-provider keys from a JWKS URL")
struct IdentityProviderURLTests {
    /// What the JWKS server answers.
    enum Answer: Sendable {
        case document([UInt8], cacheControl: String)
        case garbage
        /// Nothing for longer than the service's fetch timeout (5 s).
        case slow
    }

    static func metric(_ api: APIClient, _ name: String) throws -> Int? {
        try api.metricValue(name).flatMap { Int($0) }
    }

    @Test(
        "Keys from the URL: garbage keeps /readyz 503, the first good fetch readies, an unknown kid refetches once the keys are 10 s old whoever caused the last fetch, slow and down keep the last keys"
    )
    func fetchRotationAndFailures() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-url")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let claims = IdentityProviderFileTests.claims()
        let first = try JWTOracle.mint(
            keyDirectory: folder, jwks: ["rsa-1", "ec-1"],
            tokens: [
                "rsa": OracleToken(kid: "rsa-1", claims: claims), "ec": OracleToken(kid: "ec-1", claims: claims),
                "ed": OracleToken(kid: "ed-2", claims: claims),
            ])
        let second = try JWTOracle.mint(keyDirectory: folder, jwks: ["ec-1", "ed-2"], tokens: [:])
        let (rsa, ec, ed) = (
            try #require(first.tokens["rsa"]), try #require(first.tokens["ec"]), try #require(first.tokens["ed"])
        )

        let answer = Mutex(Answer.garbage)
        // Counted once the answer is chosen, so the test may change it after seeing the count.
        let answered = Mutex(0)
        let provider = try RawHTTPServer { _ in
            let current = answer.withLock { $0 }
            answered.withLock { $0 += 1 }
            switch current {
            case .document(let body, let cacheControl):
                return .respond(
                    RawHTTPServer.response(
                        200, headers: [("Content-Type", "application/json"), ("Cache-Control", cacheControl)],
                        body: body))
            case .garbage:
                return .respond(RawHTTPServer.response(200, body: Array("<html>not a key set</html>".utf8)))
            case .slow:
                return .stall(seconds: 8)
            }
        }
        defer { provider.stop() }
        let service = try ServiceProcess(
            arguments: [
                "--jwks-url", provider.url + "/.well-known/jwks.json", "--jwt-issuer", IdentityProviderFileTests.issuer,
                "--jwt-audience", IdentityProviderFileTests.audience,
            ], testClock: true, replicas: 1)
        let api = try APIClient(service)
        let failures = "streampreview_jwks_fetch_failures_total"

        // Garbage first: not ready, and provider tokens are refused; our own tokens work.
        #expect(eventually(within: 20) { ((try? Self.metric(api, failures)) ?? 0) >= 1 })
        #expect(try api.send("GET", "/readyz").status == 503)
        #expect(try api.feed(token: rsa).status == 401)
        #expect(try api.feed(token: service.token(sub: "own", role: "viewer")).status == 200)

        // A good document: the retry after a failure (30 s) readies the service.
        answer.withLock { $0 = .document(first.jwks, cacheControl: "public, max-age=600") }
        var clock: Int64 = 31
        try service.shiftClock(by: clock)
        #expect(eventually(within: 20) { (try? api.send("GET", "/readyz").status) == 200 })
        #expect(try api.feed(token: rsa).status == 200)
        #expect(provider.requests.allSatisfy { $0.requestLine == "GET /.well-known/jwks.json HTTP/1.1" })

        // An unknown kid just after a fetch waits: the keys are not 10 s old yet ...
        let scheduled = "streampreview_jwks_unknown_kid_total{refetch=\"scheduled\"}"
        let throttled = "streampreview_jwks_unknown_kid_total{refetch=\"throttled\"}"
        let fetched = answered.withLock { $0 }
        #expect(try api.feed(token: ed).status == 401)
        #expect(try Self.metric(api, throttled) == 1)
        // ... and fetches once they are (the document still lacks it: a made-up kid, as it were) ...
        clock += 10
        try service.shiftClock(by: clock)
        #expect(try api.feed(token: ed).status == 401)
        #expect(eventually(within: 20) { answered.withLock { $0 } == fetched + 1 })
        #expect(try Self.metric(api, scheduled) == 1)
        // ... after which the provider rotates: its new key waits for the floor, not a minute.
        answer.withLock { $0 = .document(second.jwks, cacheControl: "max-age=600") }
        #expect(try api.feed(token: ed).status == 401)
        #expect(try Self.metric(api, throttled) == 2)
        clock += 10
        try service.shiftClock(by: clock)
        #expect(try api.feed(token: ed).status == 401)
        #expect(eventually(within: 20) { (try? api.feed(token: ed).status) == 200 })
        #expect(try api.feed(token: rsa).status == 401, "rsa-1 was rotated out")
        #expect(try Self.metric(api, scheduled) == 2, "tokens sent while that fetch was due caused none")
        #expect(answered.withLock { $0 } == fetched + 2)

        // Slow (SIGHUP asks for a fetch now) and down (after max-age): failures counted, keys kept.
        let failedBefore = try #require(try Self.metric(api, failures))
        answer.withLock { $0 = .slow }
        service.send(signal: SIGHUP)
        #expect(eventually(within: 30) { (try? Self.metric(api, failures)) == failedBefore + 1 })
        #expect(try api.feed(token: ec).status == 200)
        provider.stop()
        clock += 601
        try service.shiftClock(by: clock)
        #expect(eventually(within: 30) { ((try? Self.metric(api, failures)) ?? 0) >= failedBefore + 2 })
        #expect(try api.feed(token: ec).status == 200)
        #expect(try api.feed(token: ed).status == 200)
        #expect(try api.send("GET", "/readyz").status == 200, "once loaded, a failing provider does not unready")

        // The families as the official Prometheus parser reads them.
        let scrape = try PrometheusScrape.parse(String(decoding: try api.send("GET", "/metrics").body, as: UTF8.self))
        #expect(scrape.family("streampreview_jwks_fetch_failures")?.type == "counter")
        #expect(scrape.family("streampreview_jwks_unknown_kid")?.type == "counter")
        #expect(scrape.family("streampreview_jwks_keys")?.type == "gauge")
        #expect((scrape.value("streampreview_jwks_unknown_kid_total", ["refetch": "throttled"]) ?? 0) >= 1)
        #expect(scrape.value("streampreview_jwks_keys") == 2)
    }
}

import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Rate limits of the built binary over HTTP: shared by replicas through one Redis, and the
/// client address taken from trusted proxies only. Periods are an hour, so the outcomes depend
/// on counts, not on timing.
@Suite("Rate limits end to end", .serialized)
struct RateLimitEndToEndTests {
    @Test("two serve processes on one Redis share a caller's budget; the defaults apply to the other classes")
    func replicasShareTheBudget() throws {
        let redis = try RedisServerFixture()
        let data = try TestPaths.makeTemporaryDirectory(prefix: "sp-rl")
        let arguments = [
            "--redis", "unix://" + redis.socketPath, "--rate-limit", "write=4/1h", "--sweep-interval", "0",
        ]
        let a = try ServiceProcess(arguments: arguments, dataDirectory: data, replicas: 1)
        let b = try ServiceProcess(arguments: arguments, dataDirectory: data, replicas: 1)
        let apiA = try APIClient(a)
        let apiB = try APIClient(b)
        try apiA.publish(streamId: 7, token: try a.token(sub: "sam", role: "streamer", streams: [7]))
        let viewer = try a.token(sub: "vic", role: "viewer")
        var statuses: [Int] = []
        for index in 0..<7 {
            let api = index % 2 == 0 ? apiA : apiB
            let reply = try api.send(index % 4 < 2 ? "POST" : "DELETE", "/api/streams/7/like", token: viewer)
            statuses.append(reply.status)
            #expect(reply.headers["RateLimit-Policy"] == #""write";q=4;w=3600"#)
            if reply.status == 429 {
                #expect(reply.headers["Retry-After"].flatMap { Int($0) }.map { (1...900).contains($0) } == true)
            }
        }
        #expect(statuses == [200, 200, 200, 200, 429, 429, 429])
        let feed = try apiB.feed(token: viewer)
        #expect(feed.status == 200)
        #expect(feed.headers["RateLimit-Policy"] == #""feed";q=1200;w=60"#, "the default feed policy")
        #expect(feed.headers["RateLimit"]?.hasPrefix(#""feed";r=1199;t="#) == true)
        let scrape = try apiA.send("GET", "/metrics").text + (try apiB.send("GET", "/metrics").text)
        let limited = scrape.split(separator: "\n").filter {
            $0.hasPrefix(#"streampreview_rate_limited_total{class="write"}"#)
        }
        #expect(limited.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }.reduce(0, +) == 3)
    }

    @Test("behind a trusted proxy the X-Forwarded-For client is limited and logged; from another peer it is ignored")
    func trustedProxyClientAddress() throws {
        let proxied = try ServiceProcess(
            arguments: ["--rate-limit", "feed=1/1h", "--trusted-proxies", "127.0.0.0/8,::1"], replicas: 1)
        let api = try APIClient(proxied)
        let forwarded = { (client: String) in try api.feed(headers: [("X-Forwarded-For", client)]).status }
        #expect(try forwarded("203.0.113.5") == 200)
        #expect(try forwarded("203.0.113.5") == 429)
        #expect(try forwarded("203.0.113.6") == 200)
        #expect(try forwarded("198.51.100.1, 203.0.113.6") == 429, "entries left of the client are its own word")
        #expect(
            eventually {
                let log = (try? String(contentsOfFile: proxied.stderrPath, encoding: .utf8)) ?? ""
                return log.contains("client=203.0.113.5") && log.contains("client=203.0.113.6")
            }, "the request log names the forwarded client")

        let direct = try ServiceProcess(arguments: ["--rate-limit", "feed=1/1h"], replicas: 1)
        let directAPI = try APIClient(direct)
        #expect(try directAPI.feed(headers: [("X-Forwarded-For", "203.0.113.7")]).status == 200)
        #expect(
            try directAPI.feed(headers: [("X-Forwarded-For", "203.0.113.8")]).status == 429,
            "without --trusted-proxies every request from this machine is one client")
    }
}

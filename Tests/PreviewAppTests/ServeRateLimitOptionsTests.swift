import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("serve's rate limits and trusted proxies come from flags, then the environment, then the defaults")
struct ServeRateLimitOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    func usageError(_ arguments: [String], environment: [String: String] = [:]) -> String? {
        guard case .failure(let error) = Command.parse(["serve"] + arguments, environment: environment) else {
            return nil
        }
        return error.message
    }

    @Test("by default every class is limited far above an app's traffic and no proxy is trusted")
    func defaults() throws {
        let options = try serveOptions([])
        #expect(options.rateLimits == .defaults)
        #expect(options.rateLimits[.feed] == RateLimitPolicy(count: 1200, periodSeconds: 60))
        #expect(options.rateLimits[.write] == RateLimitPolicy(count: 600, periodSeconds: 60))
        #expect(options.trustedProxies.isEmpty)
    }

    @Test("--rate-limit repeats and takes comma lists; the environment is used only without the flag")
    func flagsAndEnvironment() throws {
        let environment = [
            "STREAMPREVIEW_RATE_LIMIT": "feed=off,upload=1/1h", "STREAMPREVIEW_TRUSTED_PROXIES": "10.0.0.0/8",
        ]
        let fromEnvironment = try serveOptions([], environment: environment)
        #expect(fromEnvironment.rateLimits[.feed] == nil)
        #expect(fromEnvironment.rateLimits[.upload] == RateLimitPolicy(count: 1, periodSeconds: 3600))
        #expect(fromEnvironment.trustedProxies.blocks.map(\.description) == ["10.0.0.0/8"])
        let fromFlags = try serveOptions(
            [
                "--rate-limit", "write=120/1m,commit=off", "--rate-limit", "feed=5/10s", "--trusted-proxies",
                "fd00::/8, 192.0.2.1",
            ],
            environment: environment)
        #expect(fromFlags.rateLimits[.write] == RateLimitPolicy(count: 120, periodSeconds: 60))
        #expect(fromFlags.rateLimits[.commit] == nil)
        #expect(fromFlags.rateLimits[.feed] == RateLimitPolicy(count: 5, periodSeconds: 10))
        #expect(fromFlags.rateLimits[.upload] == RateLimits.defaults[.upload], "the environment is not merged in")
        #expect(fromFlags.trustedProxies.blocks.map(\.description) == ["fd00::/8", "192.0.2.1/32"])
    }

    @Test("a malformed limit or proxy block is a usage error naming it")
    func malformed() {
        #expect(usageError(["--rate-limit", "write=120"])?.contains("'write=120'") == true)
        #expect(usageError(["--rate-limit", "likes=1/1m"])?.contains("'likes=1/1m'") == true)
        #expect(usageError(["--trusted-proxies", "10.0.0.0/40"])?.contains("'10.0.0.0/40'") == true)
        #expect(usageError(["--trusted-proxies", "proxy.local"])?.contains("'proxy.local'") == true)
    }
}

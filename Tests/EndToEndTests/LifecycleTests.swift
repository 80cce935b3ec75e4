import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The process as operators see it: health, help, usage errors, SIGTERM, restart on the same data.
@Suite("Process lifecycle")
struct LifecycleTests {
    @Test("healthz and readyz answer 200 on a running server")
    func health() throws {
        let service = try ServiceProcess()
        let api = try APIClient(service)
        let health = try api.send("GET", "/healthz")
        #expect(health.status == 200)
        #expect(health.text.contains("ok"))
        #expect(try api.send("GET", "/readyz").status == 200)
        // Data to stdout (only the ready line), logs to stderr.
        let stdout = try String(contentsOfFile: service.stdoutPath, encoding: .utf8)
        #expect(stdout == "listening on \(service.baseURL)\n")
        #expect(try String(contentsOfFile: service.stderrPath, encoding: .utf8).contains("ready"))
    }

    @Test("Every subcommand answers --help with exit 0 and names its options")
    func help() throws {
        let expected: [(String, [String])] = [
            ("serve", ["--port", "--data-dir", "--redis", "--upload-url-ttl", "--preview-ttl", "--token-secret"]),
            ("token", ["--sub", "--role", "--stream", "--ttl", "--data-dir"]),
            ("upload", ["--server", "--token", "--stream", "--format"]),
        ]
        for (command, options) in expected {
            let result = try ServiceProcess.runBinary([command, "--help"])
            #expect(result.status == 0, "\(command) --help: \(result.stderr)")
            for option in options { #expect(result.stdout.contains(option), "\(command) --help lacks \(option)") }
        }
        let top = try ServiceProcess.runBinary(["--help"])
        #expect(top.status == 0)
        for command in ["serve", "token", "upload"] { #expect(top.stdout.contains(command)) }
    }

    @Test("Usage errors exit 64 with a message on stderr")
    func usageErrors() throws {
        let cases: [[String]] = [
            ["serve", "--port", "abc"], ["serve", "--port", "70000"], ["serve", "--bogus"], ["frobnicate"],
            ["token", "--role", "viewer"], ["token", "--sub", "sam", "--role", "streamer"],
            ["token", "--sub", "sam", "--role", "king"], ["upload", "--server", "http://x", "--token", "t"],
        ]
        for arguments in cases {
            let result = try ServiceProcess.runBinary(arguments)
            #expect(result.status == 64, "\(arguments): \(result.status) \(result.stderr)")
            #expect(!result.stderr.isEmpty, "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
        let port = try ServiceProcess.runBinary(["serve", "--port", "abc"])
        #expect(port.stderr.contains("--port"))
    }

    @Test("SIGTERM stops serve within a few seconds with exit 0 and takes its redis-server with it")
    func sigterm() throws {
        let service = try ServiceProcess()
        let token = try service.token(sub: "sam", role: "streamer", streams: [42])
        try APIClient(service).publish(streamId: 42, token: token)
        #expect(!service.redisServerPIDs().isEmpty, "the embedded redis-server is found by its data dir")
        service.send(signal: SIGTERM)
        #expect(service.waitForExit(timeout: 10) == 0, "serve exits 0 within 10 s of SIGTERM")
        // serve stops its redis-server before exiting; allow a moment for the kernel to tear it down.
        let deadline = Date().addingTimeInterval(5)
        while !service.redisServerPIDs().isEmpty, Date() < deadline { usleep(20_000) }
        #expect(service.redisServerPIDs().isEmpty, "redis-server outlived serve")
    }

    @Test("A restarted serve on the same data dir keeps the committed preview and accepts old tokens")
    func restartKeepsState() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-keep")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let movie = TestMedia.mp4(size: 2500, seed: 5)
        let first = try ServiceProcess(dataDirectory: directory)
        let streamer = try first.token(sub: "sam", role: "streamer", streams: [42])
        let viewer = try first.token(sub: "ann", role: "viewer")
        let published = try APIClient(first).publish(streamId: 42, token: streamer, movie: movie)
        #expect(try APIClient(first).send("POST", "/api/streams/42/like", token: viewer).status == 200)
        first.stop()
        #expect(first.exitStatus == 0)

        let second = try ServiceProcess(dataDirectory: directory)
        let api = try APIClient(second)
        let items = try api.feedItems(token: viewer)
        try #require(items.count == 1)
        #expect(items[0].streamId == 42)
        #expect(items[0].previewVersion == published.previewVersion)
        #expect(items[0].updatedAt == published.updatedAt)
        #expect(items[0].likes == 1 && items[0].liked)
        #expect(try api.send("GET", items[0].movieUrl).body == movie)
        // The old streamer token still works: a new version is committed.
        #expect(try api.publish(streamId: 42, token: streamer).previewVersion == published.previewVersion + 1)
    }
}

import PreviewCore
import Testing

@testable import PreviewApp

@Suite("serve's connection limits come from flags, then the environment, then the defaults")
struct ServeConnectionOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    @Test("the defaults are 64 connections per address, a 10 s header deadline and a 30 s idle timeout")
    func defaults() throws {
        let options = try serveOptions([])
        #expect(options.maxConnectionsPerIP == 64)
        #expect(options.headerTimeout == 10)
        #expect(options.idleTimeout == 30)
    }

    @Test("the environment sets them and flags override it")
    func environmentThenFlags() throws {
        let environment = [
            "STREAMPREVIEW_MAX_CONNECTIONS_PER_IP": "8", "STREAMPREVIEW_HEADER_TIMEOUT": "5",
            "STREAMPREVIEW_IDLE_TIMEOUT": "60",
        ]
        let fromEnvironment = try serveOptions([], environment: environment)
        #expect(fromEnvironment.maxConnectionsPerIP == 8)
        #expect(fromEnvironment.headerTimeout == 5)
        #expect(fromEnvironment.idleTimeout == 60)
        let fromFlags = try serveOptions(
            ["--max-connections-per-ip", "16", "--header-timeout=2", "--idle-timeout", "7"], environment: environment)
        #expect(fromFlags.maxConnectionsPerIP == 16)
        #expect(fromFlags.headerTimeout == 2)
        #expect(fromFlags.idleTimeout == 7)
    }

    @Test("8 HTTP threads and 8 worker threads by default; the environment sets them and flags override it")
    func threads() throws {
        let defaults = try serveOptions([])
        #expect(defaults.threads == 8)
        #expect(defaults.workerThreads == 8)
        let environment = ["STREAMPREVIEW_THREADS": "6", "STREAMPREVIEW_WORKER_THREADS": "3"]
        let fromEnvironment = try serveOptions([], environment: environment)
        #expect(fromEnvironment.threads == 6)
        #expect(fromEnvironment.workerThreads == 3)
        let fromFlags = try serveOptions(["--threads", "2", "--worker-threads=16"], environment: environment)
        #expect(fromFlags.threads == 2)
        #expect(fromFlags.workerThreads == 16)
    }

    @Test(
        "1,024 connections, a 10 s body deadline and a 4,096 B/s upload floor by default; the environment sets them and flags override it"
    )
    func connectionsAndBodies() throws {
        let defaults = try serveOptions([])
        #expect(defaults.maxConnections == 1024)
        #expect(defaults.bodyTimeout == 10)
        #expect(defaults.minUploadRate == 4096)
        let environment = [
            "STREAMPREVIEW_MAX_CONNECTIONS": "100", "STREAMPREVIEW_BODY_TIMEOUT": "3",
            "STREAMPREVIEW_MIN_UPLOAD_RATE": "0",
        ]
        let fromEnvironment = try serveOptions([], environment: environment)
        #expect(fromEnvironment.maxConnections == 100)
        #expect(fromEnvironment.bodyTimeout == 3)
        #expect(fromEnvironment.minUploadRate == 0)
        let fromFlags = try serveOptions(
            ["--max-connections", "50", "--body-timeout=4", "--min-upload-rate", "100"], environment: environment)
        #expect(fromFlags.maxConnections == 50)
        #expect(fromFlags.bodyTimeout == 4)
        #expect(fromFlags.minUploadRate == 100)
        #expect(throws: UsageError.self) { try serveOptions(["--max-connections", "0"]) }
        #expect(throws: UsageError.self) { try serveOptions(["--body-timeout", "0"]) }
        #expect(throws: UsageError.self) { try serveOptions(["--min-upload-rate", "-1"]) }
    }

    @Test(
        "zero or a non-number is a usage error",
        arguments: ["--max-connections-per-ip", "--header-timeout", "--idle-timeout", "--threads", "--worker-threads"])
    func outOfRange(flag: String) {
        #expect(throws: UsageError.self) { try serveOptions([flag, "0"]) }
        #expect(throws: UsageError.self) { try serveOptions([flag, "ten"]) }
    }

    @Test("/metrics is on the main port unless --metrics-listen or its variable names HOST:PORT")
    func metricsListen() throws {
        #expect(try serveOptions([]).metricsListen == nil)
        let fromEnvironment = try serveOptions([], environment: ["STREAMPREVIEW_METRICS_LISTEN": "0.0.0.0:9100"])
        #expect(fromEnvironment.metricsListen == HostPort(host: "0.0.0.0", port: 9100))
        #expect(try serveOptions(["--metrics-listen", "[::1]:0"]).metricsListen == HostPort(host: "::1", port: 0))
        #expect(throws: UsageError.self) { try serveOptions(["--metrics-listen", "9100"]) }
        #expect(throws: UsageError.self) { try serveOptions(["--metrics-listen", ":9100"]) }
    }
}

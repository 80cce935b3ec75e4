import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("serve's connection limits come from flags, then the environment, then the defaults")
struct ServeConnectionOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    /// One limit: its flag, its variable, its default, and a value for each source.
    struct Limit: Sendable {
        let flag: String
        let variable: String
        let value: @Sendable (ServeOptions) -> Int64
        let byDefault: Int64
        let fromVariable: Int64
        let fromFlag: Int64
    }

    static let limits = [
        Limit(
            flag: "max-connections-per-ip", variable: "MAX_CONNECTIONS_PER_IP",
            value: { Int64($0.maxConnectionsPerIP) },
            byDefault: 64, fromVariable: 8, fromFlag: 16),
        Limit(
            flag: "header-timeout", variable: "HEADER_TIMEOUT", value: { $0.headerTimeout }, byDefault: 10,
            fromVariable: 5, fromFlag: 2),
        Limit(
            flag: "idle-timeout", variable: "IDLE_TIMEOUT", value: { $0.idleTimeout }, byDefault: 30, fromVariable: 60,
            fromFlag: 7),
        Limit(
            flag: "threads", variable: "THREADS", value: { Int64($0.threads) }, byDefault: 8, fromVariable: 6,
            fromFlag: 2),
        Limit(
            flag: "worker-threads", variable: "WORKER_THREADS", value: { Int64($0.workerThreads) }, byDefault: 8,
            fromVariable: 3, fromFlag: 16),
        Limit(
            flag: "max-connections", variable: "MAX_CONNECTIONS", value: { Int64($0.maxConnections) },
            byDefault: 1024, fromVariable: 100, fromFlag: 50),
        Limit(
            flag: "body-timeout", variable: "BODY_TIMEOUT", value: { $0.bodyTimeout }, byDefault: 10, fromVariable: 3,
            fromFlag: 4),
        Limit(
            flag: "min-upload-rate", variable: "MIN_UPLOAD_RATE", value: { $0.minUploadRate }, byDefault: 4096,
            fromVariable: 0, fromFlag: 100),
    ]

    @Test(
        "64 connections per address, 10 s head and body deadlines, 30 s idle, 8 + 8 threads, 1,024 connections and a 4,096 B/s upload floor by default; the environment sets each and its flag overrides it"
    )
    func defaultsThenEnvironmentThenFlags() throws {
        for limit in Self.limits {
            #expect(limit.value(try serveOptions([])) == limit.byDefault, "\(limit.flag)")
            let environment = ["STREAMPREVIEW_" + limit.variable: String(limit.fromVariable)]
            #expect(limit.value(try serveOptions([], environment: environment)) == limit.fromVariable, "\(limit.flag)")
            let flagged = try serveOptions(["--\(limit.flag)=\(limit.fromFlag)"], environment: environment)
            #expect(limit.value(flagged) == limit.fromFlag, "\(limit.flag)")
        }
    }

    @Test("a body deadline of 0 or a negative upload floor is a usage error; 0 connections too")
    func refusedValues() {
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

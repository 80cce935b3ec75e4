// The built `streampreview` binary as a child process, for end-to-end tests. Linux (glibc) only.
import Foundation
import PreviewProcess
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why the service binary could not be found, started or run.
public struct ServiceProcessError: Error, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// `streampreview serve --port 0` on a fresh data directory, started with `posix_spawn` (empty signal mask,
/// default signal actions: `Foundation.Process` children inherit a blocked SIGTERM), waited for until it prints
/// `listening on http://HOST:PORT`, and stopped with SIGTERM (SIGKILL after 10 s) by `stop()` or deinit.
///
/// The server runs under `setpriv --pdeathsig KILL` when available, spawned from a thread that lives as long as the
/// child, so a crashed test run leaves no server (and, through its own death signal, no redis-server) behind.
///
/// Replica mode (`STREAMPREVIEW_TEST_REPLICAS=N`, or `replicas: N`, N > 1): the server above is replica A, N - 1
/// more `serve` processes share its data dir and Redis, and nginx balances round-robin over all of them
/// (`ServiceReplicas`, `LoadBalancerProcess`); `baseURL` is nginx's, and every replica signs URLs for it
/// (`--public-url`, unless the arguments give one). `pid`, `send(signal:)`, `exitStatus` and `waitForExit` are
/// replica A's; `stderrPath` holds every replica's log; `stop()` stops nginx, the other replicas, then A.
public final class ServiceProcess: Sendable {
    /// The URL tests send to: the server's, or in replica mode the load balancer's.
    public let baseURL: String
    public let dataDirectory: String
    public let pid: Int32
    /// Where the server's stdout and stderr go (inside a log folder of its own, not the data dir).
    public let stdoutPath: String
    public let stderrPath: String
    private let child: ChildProcess
    private let ownsDataDirectory: Bool
    private let logDirectory: String
    private let stopped = Mutex(false)
    /// The test clock file, when started with `testClock: true`.
    private let clockFile: String?
    /// The environment of every run of the binary for this server (the test clock).
    private let clockEnvironment: [String: String]
    /// The other replicas and nginx, in replica mode.
    private let replicaGroup: ServiceReplicas?
    /// The direct URL of each replica, A first (bypassing the load balancer); `[baseURL]` with one.
    public var replicaURLs: [String] { replicaGroup?.urls ?? [baseURL] }
    /// The load balancer in front of the replicas, in replica mode.
    public var loadBalancer: LoadBalancerProcess? { replicaGroup?.balancer }

    /// Starts `streampreview serve --port 0 --data-dir <dir> <arguments>`. With no `dataDirectory` a fresh one is
    /// made under /tmp (short, so the redis socket path fits) and deleted on deinit; a given one is left in place.
    /// `environment` is added to (and overrides) this process's environment for the server (e.g. storage credentials).
    /// With `testClock` the server, and the `token` runs for it, read their clock through a test clock file
    /// (`STREAMPREVIEW_TEST_CLOCK_FILE`, debug builds only) that `shiftClock(by:)` moves: expiry without waiting.
    /// `replicas` (default: `STREAMPREVIEW_TEST_REPLICAS`, else 1) above 1 starts replica mode (see the type).
    public init(
        arguments: [String] = [], dataDirectory: String? = nil, environment: [String: String] = [:],
        testClock: Bool = false, replicas: Int? = nil
    ) throws {
        let binary = try Self.binaryPath()
        let replicaCount = try replicas ?? ServiceReplicas.countFromEnvironment()
        let balancerPort = replicaCount > 1 ? try freeLoopbackPort() : nil
        var arguments = arguments
        if let balancerPort, !arguments.contains(where: { $0 == "--public-url" || $0.hasPrefix("--public-url=") }) {
            arguments += ["--public-url", "http://127.0.0.1:\(balancerPort)"]
        }
        arguments += Self.rateLimitArguments(arguments, environment: environment)
        arguments += Self.metricsArguments(arguments)
        let logDirectory = try TestPaths.makeTemporaryDirectory(prefix: "sp-log")
        self.logDirectory = logDirectory
        if testClock {
            let file = logDirectory + "/test-clock"
            try Data("0\n".utf8).write(to: URL(fileURLWithPath: file))
            clockFile = file
            clockEnvironment = ["STREAMPREVIEW_TEST_CLOCK_FILE": file]
        } else {
            clockFile = nil
            clockEnvironment = [:]
        }
        if let dataDirectory {
            self.dataDirectory = dataDirectory
            ownsDataDirectory = false
        } else {
            self.dataDirectory = try TestPaths.makeTemporaryDirectory(prefix: "sp-e2e")
            ownsDataDirectory = true
        }
        stdoutPath = logDirectory + "/stdout.log"
        stderrPath = logDirectory + "/stderr.log"
        child = try ChildProcess.spawn(
            arguments: [binary, "serve", "--port", "0", "--data-dir", self.dataDirectory]
                + Self.sharedRedisArguments(arguments, dataDirectory: self.dataDirectory) + arguments,
            stdoutPath: stdoutPath, stderrPath: stderrPath, environment: environment.merging(clockEnvironment) { $1 },
            diesWithParent: true)
        pid = child.pid
        do {
            let directURL = try Self.waitForListening(child: child, stdoutPath: stdoutPath, stderrPath: stderrPath)
            if let balancerPort {
                let group = try ServiceReplicas(
                    count: replicaCount, firstURL: directURL, balancerPort: balancerPort, binary: binary,
                    arguments: arguments, dataDirectory: self.dataDirectory,
                    environment: environment.merging(clockEnvironment) { $1 }, logDirectory: logDirectory,
                    stderrPath: stderrPath)
                replicaGroup = group
                baseURL = group.balancer.baseURL
            } else {
                replicaGroup = nil
                baseURL = directURL
            }
        } catch {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
            if ownsDataDirectory { try? FileManager.default.removeItem(atPath: self.dataDirectory) }
            try? FileManager.default.removeItem(atPath: logDirectory)
            throw error
        }
    }

    deinit {
        stop()
        keepLog()
        if ownsDataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }  // best effort
        try? FileManager.default.removeItem(atPath: logDirectory)  // best effort
    }

    /// The variable that points every server not given `--redis` at one shared Redis (a cluster in
    /// scripts/test-cluster.sh) instead of its embedded one.
    public static let sharedRedisVariable = "STREAMPREVIEW_TEST_REDIS_URL"
    /// A folder where each server's stderr is copied when it is released, so a script can read them.
    public static let keepLogsVariable = "STREAMPREVIEW_TEST_KEEP_LOGS"

    /// `--redis` of `sharedRedisVariable` and a key prefix named after the data dir (so servers
    /// do not see each other's keys, and a restart on the same data dir finds its own), unless
    /// the test chose its Redis or the variable is unset.
    static func sharedRedisArguments(_ arguments: [String], dataDirectory: String) -> [String] {
        guard let url = ProcessInfo.processInfo.environment[sharedRedisVariable], !url.isEmpty,
            !arguments.contains("--redis")
        else { return [] }
        let name = (dataDirectory as NSString).lastPathComponent.filter { $0.isLetter || $0.isNumber }
        return ["--redis", url] + (arguments.contains("--key-prefix") ? [] : ["--key-prefix", "t" + name])
    }

    /// Every rate limit class off, unless the test sets `--rate-limit` itself: the suites poll the
    /// feed every millisecond while they wait and seed hundreds of uploads under one token, which
    /// is no app's traffic, and on a shared Redis (scripts/test-cluster.sh) the same subjects of
    /// different suites would share one budget. The limiter's own suites set their limits.
    static func rateLimitArguments(_ arguments: [String], environment: [String: String]) -> [String] {
        guard !arguments.contains(where: { $0 == "--rate-limit" || $0.hasPrefix("--rate-limit=") }),
            environment["STREAMPREVIEW_RATE_LIMIT"] == nil
        else { return [] }
        return ["--rate-limit", "feed=off,write=off,upload=off,commit=off"]
    }

    /// A fresh `/metrics` page at every scrape, unless the test sets `--metrics-max-age-ms` itself:
    /// the suites read a counter right after the request that moves it, while serve answers a
    /// page up to a second old by default (MetricsScrapeCostTests keeps the default).
    static func metricsArguments(_ arguments: [String]) -> [String] {
        arguments.contains(where: { $0.hasPrefix("--metrics-max-age-ms") }) ? [] : ["--metrics-max-age-ms", "0"]
    }

    /// Copies stderr into `keepLogsVariable`'s folder, when set (best effort: a test helper).
    private func keepLog() {
        guard let folder = ProcessInfo.processInfo.environment[Self.keepLogsVariable], !folder.isEmpty else { return }
        let name = (logDirectory as NSString).lastPathComponent
        try? FileManager.default.copyItem(atPath: stderrPath, toPath: folder + "/" + name + ".stderr.log")
    }

    /// Moves the test clock to `seconds` past the real clock (negative: into the past) for the server and the
    /// tokens made for it from now on. Needs `testClock: true`.
    public func shiftClock(by seconds: Int64) throws {
        guard let clockFile else { throw ServiceProcessError("shiftClock needs ServiceProcess(testClock: true)") }
        let next = clockFile + ".next"
        try Data("\(seconds)\n".utf8).write(to: URL(fileURLWithPath: next))
        // rename(2) replaces the file at once, so the server never reads a half-written number.
        guard rename(next, clockFile) == 0 else {
            throw ServiceProcessError("rename \(next): \(String(cString: strerror(errno)))")
        }
    }

    /// The environment every run of the binary for this server gets: the test clock file, when
    /// started with `testClock: true` (give it to another process to share the clock).
    public var runEnvironment: [String: String] { clockEnvironment }

    /// The exit status once the server has exited (128 + signal when killed), else nil.
    public var exitStatus: Int32? { child.termination?.code }

    /// Sends `signal` to the server (unless it has already exited and been reaped).
    public func send(signal: Int32) { child.send(signal) }

    /// Waits up to `timeout` seconds for the server to exit; its exit status, or nil if it is still running.
    public func waitForExit(timeout: Double) -> Int32? {
        child.waitForExit(timeout: timeout) ? exitStatus : nil
    }

    /// SIGTERM, up to 10 s to exit, then SIGKILL; then makes sure no redis-server of this data dir is left.
    /// Returns how long the graceful part took. Idempotent.
    @discardableResult
    public func stop() -> Double {
        let first = stopped.withLock { already -> Bool in
            defer { already = true }
            return !already
        }
        guard first else { return 0 }
        replicaGroup?.stop()
        let started = Date()
        child.send(SIGTERM)
        if !child.waitForExit(timeout: 10) {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
        let elapsed = Date().timeIntervalSince(started)
        // The embedded redis-server dies with serve (setpriv --pdeathsig KILL); make sure of it.
        let deadline = Date().addingTimeInterval(5)
        while !redisServerPIDs().isEmpty, Date() < deadline { usleep(20_000) }
        for pid in redisServerPIDs() { _ = kill(pid, SIGKILL) }  // ignored: ESRCH means gone already
        return elapsed
    }

    /// Live redis-server processes whose command line mentions this data directory (the embedded one).
    public func redisServerPIDs() -> [Int32] {
        Self.livePIDs(commandLineContaining: dataDirectory + "/", named: "redis-server")
    }

    /// A bearer token from `streampreview token` with this server's secret.
    public func token(sub: String, role: String, streams: [Int64] = [], ttl: Int64? = nil) throws -> String {
        var arguments = ["token", "--sub", sub, "--role", role]
        for stream in streams { arguments += ["--stream", String(stream)] }
        if let ttl { arguments += ["--ttl", String(ttl)] }
        let result = try run(arguments)
        guard result.status == 0 else {
            throw ServiceProcessError("streampreview token failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs another subcommand of the binary; `token` gets `--data-dir` of this server added.
    public func run(_ arguments: [String]) throws -> ProcessResult {
        var arguments = arguments
        if arguments.first == "token", !arguments.contains("--data-dir") { arguments += ["--data-dir", dataDirectory] }
        return try ProcessResult.run([try Self.binaryPath()] + arguments, timeout: 60, environment: clockEnvironment)
    }

    /// The secret `serve` keeps in its data dir for HS256 tokens.
    public func tokenSecret() throws -> String {
        try String(contentsOfFile: dataDirectory + "/token-secret", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `streampreview <arguments>` to completion (at most `timeout` seconds, then SIGKILL).
    public static func runBinary(_ arguments: [String], timeout: Double = 60) throws -> ProcessResult {
        try ProcessResult.run([try binaryPath()] + arguments, timeout: timeout)
    }

    /// The `streampreview` executable next to the test bundle (the same build folder), or `STREAMPREVIEW_BINARY`.
    public static func binaryPath() throws -> String {
        if let path = ProcessInfo.processInfo.environment["STREAMPREVIEW_BINARY"], !path.isEmpty { return path }
        var candidates: [String] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append((exe as NSString).deletingLastPathComponent)
        }
        if let first = CommandLine.arguments.first {
            let absolute = first.hasPrefix("/") ? first : FileManager.default.currentDirectoryPath + "/" + first
            candidates.append((absolute as NSString).deletingLastPathComponent)
        }
        for folder in candidates {
            // The bundle may be a folder (`X.xctest/...`); walk up until a build folder holds the binary.
            var current = folder
            while current.count > 1 {
                let path = current + "/streampreview"
                if FileManager.default.isExecutableFile(atPath: path) { return path }
                current = (current as NSString).deletingLastPathComponent
            }
        }
        throw ServiceProcessError(
            "the streampreview executable was not found next to the test bundle (looked in \(candidates)); "
                + "build it first (`swift build`) or set STREAMPREVIEW_BINARY")
    }

    static func waitForListening(child: ChildProcess, stdoutPath: String, stderrPath: String) throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let output = (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? ""
            for line in output.split(separator: "\n") where line.hasPrefix("listening on http://") {
                return String(line.dropFirst("listening on ".count)).trimmingCharacters(in: .whitespaces)
            }
            if let status = child.termination?.code {
                let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                throw ServiceProcessError(
                    "streampreview serve exited (\(status)) before listening:\n\(log.suffix(2000))")
            }
            usleep(20_000)
        }
        let log = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        throw ServiceProcessError(
            "streampreview serve did not print 'listening on' within 20 s (threads: \(threadStates(child.pid))):\n"
                + log.suffix(2000))
    }

    /// `name state wchan` of each thread of `pid` from /proc, to tell where a server that does not start waits.
    static func threadStates(_ pid: Int32) -> String {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.sorted().map { task in
            let folder = "/proc/\(pid)/task/\(task)/"
            let status = (try? String(contentsOfFile: folder + "status", encoding: .utf8)) ?? ""
            let fields = status.split(separator: "\n").filter { $0.hasPrefix("Name:") || $0.hasPrefix("State:") }
            let wchan = (try? String(contentsOfFile: folder + "wchan", encoding: .utf8)) ?? "?"
            return fields.map { $0.split(separator: "\t").dropFirst().joined(separator: " ") }.joined(separator: " ")
                + " " + wchan
        }.joined(separator: "; ")
    }

    /// Scans /proc for running (non-zombie) processes named `name` whose argv contains `fragment`.
    static func livePIDs(commandLineContaining fragment: String, named name: String) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { entry -> Int32? in
            guard let pid = Int32(entry),
                let cmdline = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), !cmdline.isEmpty,
                let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)
            else { return nil }
            // Field 3 of stat, after the parenthesised command name, is the state; Z is a zombie.
            if let close = stat.lastIndex(of: ")"),
                stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).hasPrefix("Z")
            {
                return nil
            }
            let arguments = cmdline.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard let program = arguments.first, program.hasSuffix(name) || program.contains(name + " ") else {
                return nil
            }
            return arguments.contains(where: { $0.contains(fragment) }) ? pid : nil
        }
    }
}

// Replica mode of `ServiceProcess`: more `serve` processes and nginx in front of them. Linux (glibc) only.
import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#endif

/// The replicas of a `ServiceProcess` after the first, and the load balancer in front of all of them.
///
/// Each further replica is `streampreview serve --port 0` on the first one's data dir (so the same secrets and
/// object store) and, unless the arguments or environment name a Redis, the first one's embedded Redis
/// (`unix://<data dir>/redis/redis.sock`), with the same arguments and environment (the test clock included). Its
/// stdout goes to `stdout-<n>.log` in the log folder and its stderr is appended to the first one's (one `write(2)`
/// a line, `O_APPEND`: lines never mix), so a test reads every replica's log in one file.
final class ServiceReplicas: Sendable {
    /// The environment variable that turns replica mode on: how many `serve` processes to start (1 when unset).
    static let countVariable = "STREAMPREVIEW_TEST_REPLICAS"

    let balancer: LoadBalancerProcess
    /// The direct URL of every replica, the first one's included.
    let urls: [String]
    private let others: [ChildProcess]

    /// How many replicas `STREAMPREVIEW_TEST_REPLICAS` asks for: 1 when unset or empty.
    static func countFromEnvironment() throws -> Int {
        guard let text = ProcessInfo.processInfo.environment[countVariable], !text.isEmpty else { return 1 }
        guard let count = Int(text), (1...8).contains(count) else {
            throw ServiceProcessError("\(countVariable)=\(text): expected a number of replicas from 1 to 8")
        }
        return count
    }

    /// Starts `count - 1` more replicas of the one at `firstURL`, then nginx on `balancerPort` in front of all.
    /// On failure, whatever was started is stopped again; the first replica is the caller's.
    init(
        count: Int, firstURL: String, balancerPort: UInt16, binary: String, arguments: [String],
        dataDirectory: String, environment: [String: String], logDirectory: String, stderrPath: String
    ) throws {
        var serveArguments = ["serve", "--port", "0", "--data-dir", dataDirectory] + arguments
        let redisNamed =
            arguments.contains { $0 == "--redis" || $0.hasPrefix("--redis=") }
            || ProcessInfo.processInfo.environment.merging(environment) { $1 }["STREAMPREVIEW_REDIS_URL"] != nil
        if !redisNamed { serveArguments += ["--redis", "unix://\(dataDirectory)/redis/redis.sock"] }
        var others: [ChildProcess] = []
        var urls = [firstURL]
        do {
            for index in 1..<count {
                let stdoutPath = logDirectory + "/stdout-\(index + 1).log"
                let child = try ChildProcess.spawn(
                    arguments: [binary] + serveArguments, stdoutPath: stdoutPath, stderrPath: stderrPath,
                    environment: environment, diesWithParent: true)
                others.append(child)
                urls.append(
                    try ServiceProcess.waitForListening(child: child, stdoutPath: stdoutPath, stderrPath: stderrPath))
            }
            let upstreams = urls.map { String($0.dropFirst("http://".count)) }
            balancer = try LoadBalancerProcess(port: balancerPort, upstreams: upstreams, directory: logDirectory)
        } catch {
            Self.stop(others)
            throw error
        }
        self.others = others
        self.urls = urls
    }

    /// Stops nginx, then the further replicas (SIGTERM to all, 10 s each to exit, then SIGKILL). Idempotent.
    func stop() {
        balancer.stop()
        Self.stop(others)
    }

    private static func stop(_ children: [ChildProcess]) {
        for child in children { child.send(SIGTERM) }
        for child in children where !child.waitForExit(timeout: 10) {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
    }
}

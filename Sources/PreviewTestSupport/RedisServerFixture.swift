import Foundation
public import PreviewRedis

#if canImport(Glibc)
    import Glibc
#endif

/// A private redis-server for one test suite (instance): a fresh directory under /tmp (short, so the unix socket
/// path fits), a server on `<dir>/redis.sock` with persistence off, torn down and deleted by `stop()` or deinit.
///
/// A missing redis-server makes `init` throw with a clear message, so the test fails instead of skipping.
public final class RedisServerFixture {
    public let directory: String
    public private(set) var server: RedisServerProcess
    private let extraArguments: [String]
    private var stopped = false

    public var endpoint: RedisEndpoint { server.endpoint }
    public var socketPath: String { server.socketPath }

    /// `extraArguments` go to redis-server as given, e.g. `["--requirepass", "pw"]`.
    public init(extraArguments: [String] = []) throws {
        // hiredis writes with write(): a server that went away would SIGPIPE the test process.
        _ = signal(SIGPIPE, SIG_IGN)  // ignored result: the previous handler
        self.directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-redis")
        self.extraArguments = extraArguments
        do {
            self.server = try RedisServerProcess.start(
                directory: directory, appendOnly: false, extraArguments: extraArguments)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)  // best effort: the start error matters more
            throw error
        }
    }

    deinit {
        stop()
    }

    /// A new connection to this server (with its password, if any).
    public func connection(connectTimeout: Double = 1, commandTimeout: Double = 2) throws -> RedisConnection {
        try RedisConnection(endpoint: endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
    }

    /// A pool on this server.
    public func pool(maxIdle: Int = 4, connectTimeout: Double = 1, commandTimeout: Double = 2) -> RedisPool {
        RedisPool(endpoint: endpoint, maxIdle: maxIdle, connectTimeout: connectTimeout, commandTimeout: commandTimeout)
    }

    /// SIGKILLs the server and waits until it is gone, as if Redis had crashed.
    public func killServer() {
        _ = kill(server.pid, SIGKILL)  // ignored result: ESRCH means it is already gone, which is the goal
        server.stop()  // reaps it
    }

    /// Starts a new server on the same directory and socket path (after `killServer()`).
    public func restartServer() throws {
        server.stop()
        server = try RedisServerProcess.start(directory: directory, appendOnly: false, extraArguments: extraArguments)
    }

    /// Stops the server and deletes the directory. Idempotent.
    public func stop() {
        guard !stopped else { return }
        stopped = true
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)  // best effort: leftovers in /tmp are harmless
    }
}

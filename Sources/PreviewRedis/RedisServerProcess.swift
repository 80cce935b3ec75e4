import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a redis-server child could not be started.
public struct RedisServerError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// A redis-server running as our child, listening only on the unix socket `<directory>/redis.sock`
/// (`port 0`, `dir <directory>`, `daemonize no`, `save ""`, `appendonly yes|no`), logging to `<directory>/redis-server.log`.
///
/// Used by the app's embedded mode and by tests. It is spawned with `posix_spawn`, an empty signal mask and default
/// signal dispositions (not `Foundation.Process`, whose children inherit a blocked SIGTERM), in its own process group
/// (a terminal ^C reaches only us; we stop it in order). When `/usr/bin/setpriv` exists it runs under
/// `setpriv --pdeathsig KILL`, so it dies with us even if we are SIGKILLed. The death signal follows the spawning
/// *thread*, so the spawn happens on a dedicated thread that lives exactly as long as the child (it waits for it):
/// `start` may be called from any thread.
public final class RedisServerProcess: Sendable {
    public let directory: String
    public let socketPath: String
    public let logPath: String
    public let pid: Int32
    /// Where to connect; carries the password when `extraArguments` set `--requirepass`.
    public let endpoint: RedisEndpoint
    private let child: ChildProcess

    /// Longest unix socket path: `sun_path` is 108 bytes including the terminating NUL.
    public static let maxSocketPathLength = 107

    /// The unix socket of the server started in `directory`.
    public static func socketPath(directory: String) -> String {
        absolute(directory, cwd: FileManager.default.currentDirectoryPath) + "/redis.sock"
    }

    /// Starts redis-server and waits (up to ~10 s) until it answers PING.
    ///
    /// Throws `RedisServerError` naming the executable when it is missing, when the socket path would be too long,
    /// or when the server exits or does not answer in time (with the tail of its log).
    public static func start(
        directory: String, executable: String = "redis-server", appendOnly: Bool = true, extraArguments: [String] = []
    ) throws -> RedisServerProcess {
        let fileManager = FileManager.default
        let directory = absolute(directory, cwd: fileManager.currentDirectoryPath)
        let socketPath = Self.socketPath(directory: directory)
        guard socketPath.utf8.count <= maxSocketPathLength else {
            throw RedisServerError(
                message: "redis unix socket path '\(socketPath)' is \(socketPath.utf8.count) bytes; the limit is "
                    + "\(maxSocketPathLength): choose a shorter directory")
        }
        guard let program = ChildProcess.executable(named: executable) else {
            throw RedisServerError(
                message: "cannot start redis: executable '\(executable)' not found or not executable "
                    + "(PATH=\(ProcessInfo.processInfo.environment["PATH"] ?? "")); install redis-server or pass its path"
            )
        }
        do {
            try fileManager.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RedisServerError(message: "cannot create redis directory '\(directory)': \(error)")
        }
        let logPath = directory + "/redis-server.log"

        let arguments =
            [
                program,
                "--port", "0",
                "--unixsocket", socketPath,
                "--unixsocketperm", "700",
                "--dir", directory,
                "--daemonize", "no",
                "--save", "",
                "--appendonly", appendOnly ? "yes" : "no",
                "--logfile", logPath,
            ] + extraArguments

        let child: ChildProcess
        do {
            child = try ChildProcess.spawn(arguments: arguments, stdoutPath: logPath, diesWithParent: true)
        } catch {
            throw RedisServerError(message: error.message)
        }
        var endpoint = RedisEndpoint(address: .unix(path: socketPath))
        if let flag = extraArguments.firstIndex(of: "--requirepass"), flag + 1 < extraArguments.count {
            endpoint.password = extraArguments[flag + 1]
        }
        let server = RedisServerProcess(
            directory: directory, socketPath: socketPath, logPath: logPath, endpoint: endpoint, child: child)
        do {
            try server.waitUntilReady(executable: program, timeout: 10)
        } catch {
            server.child.send(SIGKILL)
            _ = server.child.waitForExit(timeout: 5)
            throw error
        }
        return server
    }

    private init(directory: String, socketPath: String, logPath: String, endpoint: RedisEndpoint, child: ChildProcess) {
        self.directory = directory
        self.socketPath = socketPath
        self.logPath = logPath
        self.endpoint = endpoint
        self.pid = child.pid
        self.child = child
    }

    deinit {
        stop()
    }

    /// True once the child has exited (stopped, crashed or killed) and been reaped.
    public var hasExited: Bool { child.hasExited }

    /// Stops the server and waits for it: SIGTERM, which redis handles exactly as `SHUTDOWN` (AOF flushed and
    /// fsynced, socket removed) without needing AUTH; SIGKILL if it is still there after ~5 s. Idempotent.
    public func stop() {
        guard !child.hasExited else { return }
        child.send(SIGTERM)
        if !child.waitForExit(timeout: 5) {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
    }

    /// Polls PING until it is answered. An error reply other than LOADING (e.g. NOAUTH) also means it is up.
    private func waitUntilReady(executable: String, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        var lastError = "no attempt"
        while Date() < deadline {
            if let status = child.termination {
                throw RedisServerError(
                    message: "\(executable) exited (\(status)) before answering PING on \(socketPath)\(logTail())")
            }
            do {
                let connection = try RedisConnection(endpoint: endpoint, connectTimeout: 0.5, commandTimeout: 1)
                _ = try connection.command(["PING"])
                return
            } catch let error as RedisError where error.kind == .server && !error.message.hasPrefix("LOADING") {
                return
            } catch {
                lastError = "\(error)"
            }
            usleep(20_000)
        }
        throw RedisServerError(
            message: "\(executable) did not answer PING on \(socketPath) within \(Int(timeout)) s "
                + "(last error: \(lastError))\(logTail())")
    }

    /// The last lines of the server log, for error messages.
    private func logTail(lines: Int = 15) -> String {
        guard let data = FileManager.default.contents(atPath: logPath), !data.isEmpty else {
            return "; log \(logPath) is empty or missing"
        }
        let text = String(decoding: data.suffix(4096), as: UTF8.self)
        let tail = text.split(separator: "\n", omittingEmptySubsequences: true).suffix(lines)
        return "; last lines of \(logPath):\n" + tail.joined(separator: "\n")
    }

    private static func absolute(_ path: String, cwd: String) -> String {
        var result = path.hasPrefix("/") ? path : cwd + "/" + path
        while result.count > 1 && result.hasSuffix("/") { result.removeLast() }
        return result
    }
}

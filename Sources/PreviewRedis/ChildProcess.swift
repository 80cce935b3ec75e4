// posix_spawn and the reaper thread behind RedisServerProcess. Linux (glibc) only.
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A child process started by, and waited for on, its own thread.
///
/// The thread calls `posix_spawn` and then blocks until the child exits, so it lives exactly as long as the child:
/// a `PR_SET_PDEATHSIG` set in the child (by setpriv) fires only when our whole process dies, never because the
/// thread that happened to call `start` finished. It waits with `WNOWAIT` and reaps under the lock that `send`
/// takes, so a signal can never reach a recycled pid.
final class ChildProcess: Sendable {
    private struct State {
        var pid: pid_t = 0
        var spawnError: String?
        /// Set once the child has been reaped, e.g. "exit status 1", "signal 9".
        var exitStatus: String?
    }

    private let state = Mutex(State())
    private let spawned = DispatchSemaphore(value: 0)

    private init() {}

    var pid: pid_t { state.withLock { $0.pid } }
    var exitStatus: String? { state.withLock { $0.exitStatus } }
    var hasExited: Bool { exitStatus != nil }

    /// Spawns `arguments[0]` (an absolute path) with stdin from /dev/null and stdout+stderr appended to `outputPath`.
    static func spawn(arguments: [String], outputPath: String) throws -> ChildProcess {
        let child = ChildProcess()
        let thread = Thread { child.spawnAndWait(arguments: arguments, outputPath: outputPath) }
        thread.name = "child-reaper"
        thread.start()
        guard child.spawned.wait(timeout: .now() + 10) == .success else {
            throw RedisServerError(message: "posix_spawn of \(arguments[0]) did not return within 10 s")
        }
        if let error = child.state.withLock({ $0.spawnError }) { throw RedisServerError(message: error) }
        return child
    }

    /// Sends `signal` unless the child has already been reaped.
    func send(_ signal: Int32) {
        state.withLock { state in
            // Ignored result: ESRCH means it is exiting right now; the reaper records that.
            if state.exitStatus == nil && state.pid > 0 { _ = kill(state.pid, signal) }
        }
    }

    /// Waits until the child has been reaped; false on timeout.
    func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !hasExited {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Runs on the child's own thread.
    private func spawnAndWait(arguments: [String], outputPath: String) {
        let pid: pid_t
        do {
            pid = try Self.posixSpawn(arguments: arguments, outputPath: outputPath)
        } catch {
            state.withLock { $0.spawnError = "\(error)" }
            spawned.signal()
            return
        }
        state.withLock { $0.pid = pid }
        spawned.signal()

        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0 && errno == EINTR {}
        state.withLock { state in
            var status: Int32 = 0
            var reaped = waitpid(pid, &status, 0)
            while reaped < 0 && errno == EINTR { reaped = waitpid(pid, &status, 0) }
            state.exitStatus = reaped == pid ? Self.describe(status) : "unknown (already reaped elsewhere)"
        }
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG are macros, so decoded by hand.
    private static func describe(_ status: Int32) -> String {
        let signal = status & 0x7f
        return signal == 0 ? "exit status \((status >> 8) & 0xff)" : "signal \(signal)"
    }

    /// posix_spawn with an empty signal mask, every signal at its default disposition (we ignore SIGPIPE and
    /// Foundation may block SIGTERM; neither must reach the child), a new process group, and only fds 0-2 inherited.
    private static func posixSpawn(arguments: [String], outputPath: String) throws -> pid_t {
        func check(_ result: Int32, _ what: String) throws {
            guard result == 0 else {
                throw RedisServerError(message: "\(what) failed for \(arguments[0]): \(String(cString: strerror(result)))")
            }
        }
        guard let path = arguments.first else { throw RedisServerError(message: "no program to spawn") }

        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        try check(posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0), "open /dev/null")
        try check(
            posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644),
            "open \(outputPath)")
        try check(posix_spawn_file_actions_adddup2(&actions, 1, 2), "dup2 stdout to stderr")
        if let addCloseFrom = lookUpAddCloseFrom() { try check(addCloseFrom(&actions, 3), "closefrom 3") }

        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        sigemptyset(&noSignals)  // ignored results: only fail for a NULL set
        sigfillset(&allSignals)
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "posix_spawnattr_setsigmask")
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "posix_spawnattr_setsigdefault")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        try check(posix_spawn(&pid, path, &actions, &attributes, argv, envp), "posix_spawn")
        return pid
    }

    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32

    /// glibc 2.34+ has `posix_spawn_file_actions_addclosefrom_np`, but declares it only under _GNU_SOURCE, which the
    /// Glibc module does not define; look it up at run time. Without it (older libc) fds lacking CLOEXEC leak into
    /// the child, e.g. a test runner's pipes, which would then stay open as long as redis runs.
    private static func lookUpAddCloseFrom() -> AddCloseFrom? {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }
}

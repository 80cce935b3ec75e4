// The one place that spawns child processes: posix_spawn and the reaper thread behind the embedded
// redis-server and the test support's children (the service binary, redis-server, ffmpeg, moto,
// protoc, openssl, the SDK scripts). Linux (glibc) only.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why a child process could not be started.
public struct ChildProcessError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(message: String) { self.message = message }
    public var description: String { message }
}

/// How a child process ended.
public enum ChildTermination: Sendable, Equatable, CustomStringConvertible {
    case exited(status: Int32)
    case signalled(Int32)
    /// Reaped by someone else (a `waitpid(-1)` elsewhere in the process), so the status is lost.
    case unknown

    /// "exit status 1", "signal 9".
    public var description: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .signalled(let signal): "signal \(signal)"
        case .unknown: "unknown (already reaped elsewhere)"
        }
    }

    /// The shell's number for it: the exit status, 128 + the signal, or -1 when unknown.
    public var code: Int32 {
        switch self {
        case .exited(let status): status
        case .signalled(let signal): 128 + signal
        case .unknown: -1
        }
    }
}

/// A child process started by, and waited for on, its own thread.
///
/// It is spawned with `posix_spawn`, an empty signal mask and every signal at its default disposition (not
/// `Foundation.Process`, whose children inherit a blocked SIGTERM; and we ignore SIGPIPE), in a process group of its
/// own, with stdin from /dev/null and only fds 0-2 inherited.
///
/// The thread calls `posix_spawn` and then blocks until the child exits, so it lives exactly as long as the child:
/// a `PR_SET_PDEATHSIG` set in the child (by setpriv, see `diesWithParent`) fires only when our whole process dies,
/// never because the thread that happened to call `spawn` finished. It waits with `WNOWAIT` and reaps under the lock
/// that `send` takes, so a signal can never reach a recycled pid.
public final class ChildProcess: Sendable {
    private struct State {
        var pid: pid_t = 0
        var spawnError: String?
        /// Set once the child has been reaped.
        var termination: ChildTermination?
    }

    private let state = Mutex(State())
    private let spawned = DispatchSemaphore(value: 0)

    private init() {}

    public var pid: Int32 { state.withLock { $0.pid } }
    /// How the child ended, once it has been reaped; nil while it runs.
    public var termination: ChildTermination? { state.withLock { $0.termination } }
    public var hasExited: Bool { termination != nil }

    /// Spawns `arguments[0]` (an absolute path).
    ///
    /// - Parameters:
    ///   - stdoutPath: the file stdout is appended to (created when missing).
    ///   - stderrPath: the file stderr is appended to; nil sends it to `stdoutPath` as well.
    ///   - stdinPath: the file stdin reads from (default /dev/null).
    ///   - workingDirectory: the child's working directory; nil keeps ours.
    ///   - environment: added to (and overriding) this process's environment.
    ///   - diesWithParent: runs the program under `/usr/bin/setpriv --pdeathsig KILL` when that exists, so it is
    ///     killed with us even if we are SIGKILLed.
    public static func spawn(
        arguments: [String], stdoutPath: String, stderrPath: String? = nil, stdinPath: String = "/dev/null",
        workingDirectory: String? = nil, environment: [String: String] = [:], diesWithParent: Bool = false
    ) throws(ChildProcessError) -> ChildProcess {
        var arguments = arguments
        let setpriv = "/usr/bin/setpriv"
        if diesWithParent, FileManager.default.isExecutableFile(atPath: setpriv) {
            arguments = [setpriv, "--pdeathsig", "KILL", "--"] + arguments
        }
        let child = ChildProcess()
        let files = StandardFiles(
            stdin: stdinPath, stdout: stdoutPath, stderr: stderrPath, workingDirectory: workingDirectory)
        let thread = Thread { [arguments] in
            child.spawnAndWait(arguments: arguments, files: files, environment: environment)
        }
        thread.name = "child-reaper"
        thread.start()
        guard child.spawned.wait(timeout: .now() + 10) == .success else {
            throw ChildProcessError(message: "posix_spawn of \(arguments.first ?? "") did not return within 10 s")
        }
        if let error = child.state.withLock({ $0.spawnError }) { throw ChildProcessError(message: error) }
        return child
    }

    /// The program to spawn for `name`: `name` itself when it holds a `/` (and is executable), else
    /// the first executable `name` in a folder of `PATH`, then /usr/local/bin, /usr/bin, /bin.
    public static func executable(named name: String) -> String? {
        let fileManager = FileManager.default
        if name.contains("/") { return fileManager.isExecutableFile(atPath: name) ? name : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin"]
        return folders.filter { !$0.isEmpty }.map { "\($0)/\(name)" }.first { fileManager.isExecutableFile(atPath: $0) }
    }

    /// Sends `signal` unless the child has already been reaped.
    public func send(_ signal: Int32) {
        state.withLock { state in
            // Ignored result: ESRCH means it is exiting right now; the reaper records that.
            if state.termination == nil && state.pid > 0 { _ = kill(state.pid, signal) }
        }
    }

    /// Waits until the child has been reaped; false on timeout.
    public func waitForExit(timeout: Double) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !hasExited {
            if Date() >= deadline { return false }
            usleep(5_000)
        }
        return true
    }

    /// Where the child's fds 0-2 point, and the folder it starts in.
    private struct StandardFiles: Sendable {
        var stdin: String
        var stdout: String
        var stderr: String?
        var workingDirectory: String?
    }

    /// Runs on the child's own thread.
    private func spawnAndWait(arguments: [String], files: StandardFiles, environment: [String: String]) {
        let pid: pid_t
        do {
            pid = try Self.posixSpawn(arguments: arguments, files: files, environment: environment)
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
            state.termination = reaped == pid ? Self.decode(status) : .unknown
        }
    }

    /// WIFEXITED / WEXITSTATUS / WTERMSIG are macros, so decoded by hand.
    private static func decode(_ status: Int32) -> ChildTermination {
        let signal = status & 0x7f
        return signal == 0 ? .exited(status: (status >> 8) & 0xff) : .signalled(signal)
    }

    /// posix_spawn with an empty signal mask, every signal at its default disposition (we ignore SIGPIPE and
    /// Foundation may block SIGTERM; neither must reach the child), a new process group, and only fds 0-2 inherited.
    private static func posixSpawn(
        arguments: [String], files: StandardFiles, environment extra: [String: String]
    ) throws -> pid_t {
        func check(_ result: Int32, _ what: String) throws {
            guard result == 0 else {
                throw ChildProcessError(
                    message: "\(what) failed for \(arguments[0]): \(String(cString: strerror(result)))")
            }
        }
        guard let path = arguments.first else { throw ChildProcessError(message: "no program to spawn") }

        var actions = posix_spawn_file_actions_t()
        try check(posix_spawn_file_actions_init(&actions), "posix_spawn_file_actions_init")
        defer { posix_spawn_file_actions_destroy(&actions) }
        let append = O_WRONLY | O_CREAT | O_APPEND
        try check(posix_spawn_file_actions_addopen(&actions, 0, files.stdin, O_RDONLY, 0), "open \(files.stdin)")
        try check(posix_spawn_file_actions_addopen(&actions, 1, files.stdout, append, 0o644), "open \(files.stdout)")
        if let stderrPath = files.stderr {
            try check(posix_spawn_file_actions_addopen(&actions, 2, stderrPath, append, 0o644), "open \(stderrPath)")
        } else {
            try check(posix_spawn_file_actions_adddup2(&actions, 1, 2), "dup2 stdout to stderr")
        }
        if let addCloseFrom = lookUpAddCloseFrom() { try check(addCloseFrom(&actions, 3), "closefrom 3") }
        if let directory = files.workingDirectory {
            guard let addChdir = lookUpAddChdir() else {
                throw ChildProcessError(message: "this libc cannot start a child in another folder (\(directory))")
            }
            try check(addChdir(&actions, directory), "chdir \(directory)")
        }

        var attributes = posix_spawnattr_t()
        try check(posix_spawnattr_init(&attributes), "posix_spawnattr_init")
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        var allSignals = sigset_t()
        _ = sigemptyset(&noSignals)  // ignored result: fails only for a NULL set
        _ = sigfillset(&allSignals)  // ignored result: fails only for a NULL set
        try check(posix_spawnattr_setsigmask(&attributes, &noSignals), "posix_spawnattr_setsigmask")
        try check(posix_spawnattr_setsigdefault(&attributes, &allSignals), "posix_spawnattr_setsigdefault")
        try check(posix_spawnattr_setpgroup(&attributes, 0), "posix_spawnattr_setpgroup")
        let flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP
        try check(posix_spawnattr_setflags(&attributes, Int16(flags)), "posix_spawnattr_setflags")

        let environment = ProcessInfo.processInfo.environment.merging(extra) { _, added in added }
            .map { "\($0.key)=\($0.value)" }
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
    /// the child, e.g. a test runner's pipes, which would then stay open as long as the child runs.
    private static func lookUpAddCloseFrom() -> AddCloseFrom? {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: AddCloseFrom.self)
    }

    private typealias AddChdir =
        @convention(c) (
            UnsafeMutablePointer<posix_spawn_file_actions_t>?, UnsafePointer<CChar>?
        ) -> Int32

    /// `posix_spawn_file_actions_addchdir_np` (glibc 2.29+), likewise declared only under _GNU_SOURCE.
    private static func lookUpAddChdir() -> AddChdir? {
        guard let symbol = dlsym(nil, "posix_spawn_file_actions_addchdir_np") else { return nil }
        return unsafeBitCast(symbol, to: AddChdir.self)
    }
}

// A run of the `streampreview` binary that a test does not wait for: a `sweep` to kill part
// way, or several commands at once. Linux (glibc) only.
import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#endif

/// `streampreview <arguments>` started in the background (posix_spawn, empty signal mask, killed
/// with the test process), with stdout and stderr in files of its own. Killed with SIGKILL by
/// deinit when still running, so no run outlives its test.
public final class BackgroundRun: Sendable {
    public let arguments: [String]
    public let pid: Int32
    public let stdoutPath: String
    public let stderrPath: String
    private let child: ChildProcess
    private let directory: String

    /// Starts the binary with `arguments`; `environment` is added to this process's.
    public init(_ arguments: [String], environment: [String: String] = [:]) throws {
        self.arguments = arguments
        let binary = try ServiceProcess.binaryPath()
        directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-bg")
        stdoutPath = directory + "/stdout"
        stderrPath = directory + "/stderr"
        do {
            child = try ChildProcess.spawn(
                arguments: [binary] + arguments, stdoutPath: stdoutPath, stderrPath: stderrPath,
                environment: environment, diesWithParent: true)
        } catch {
            try? FileManager.default.removeItem(atPath: directory)  // best effort: the spawn error matters more
            throw ServiceProcessError("cannot start streampreview \(arguments): \(error)")
        }
        pid = child.pid
    }

    deinit {
        if !child.hasExited {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
        try? FileManager.default.removeItem(atPath: directory)  // best effort: leftovers in /tmp are harmless
    }

    /// The exit status once it has exited (128 + signal when killed), else nil.
    public var exitStatus: Int32? { child.termination?.code }

    /// SIGKILLs the run (unless it has exited already) and waits until it is reaped.
    public func kill() {
        child.send(SIGKILL)
        _ = child.waitForExit(timeout: 10)
    }

    /// Waits up to `timeout` seconds; the exit status, or nil (after a SIGKILL) when it ran longer.
    @discardableResult
    public func wait(timeout: Double) -> Int32? {
        if child.waitForExit(timeout: timeout) { return exitStatus }
        kill()
        return nil
    }

    /// What it printed to stdout so far.
    public var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// What it printed to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }
}

extension ServiceProcess {
    /// Starts `streampreview <arguments>` in the background with this server's test clock (if any),
    /// e.g. `["sweep", "--data-dir", dataDirectory]`.
    public func startRun(_ arguments: [String]) throws -> BackgroundRun {
        try BackgroundRun(arguments, environment: runEnvironment)
    }
}

// Running a program to completion, with a timeout, for tests. Linux (glibc) only.
import Foundation
import PreviewProcess

#if canImport(Glibc)
    import Glibc
#endif

/// What a finished run of a program printed, and how it ended.
public struct ProcessResult: Sendable {
    /// The exit status, or 128 + the signal number when a signal ended it (-1 when unknown).
    public var status: Int32
    /// stdout as it was written (binary output stays intact).
    public var stdoutBytes: [UInt8]
    public var stderr: String
    /// Whether it was SIGKILLed for running past its timeout.
    public var timedOut: Bool

    /// stdout as text (invalid UTF-8 replaced).
    public var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// Runs `arguments[0]` (an absolute path) to completion, SIGKILLed after `timeout` seconds, with stdout and
    /// stderr collected through files in a fresh folder under /tmp. `input` is its stdin (none by default),
    /// `workingDirectory` where it starts, and `environment` is added to this process's.
    public static func run(
        _ arguments: [String], timeout: Double, input: [UInt8] = [], workingDirectory: String? = nil,
        environment: [String: String] = [:]
    ) throws -> ProcessResult {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-run")
        defer { try? FileManager.default.removeItem(atPath: directory) }  // best effort
        let out = directory + "/stdout", err = directory + "/stderr", stdin = directory + "/stdin"
        try Data(input).write(to: URL(fileURLWithPath: stdin))
        let child = try ChildProcess.spawn(
            arguments: arguments, stdoutPath: out, stderrPath: err, stdinPath: stdin,
            workingDirectory: workingDirectory, environment: environment)
        let finished = child.waitForExit(timeout: timeout)
        if !finished {
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
        }
        return ProcessResult(
            status: child.termination?.code ?? -1,
            stdoutBytes: FileManager.default.contents(atPath: out).map { [UInt8]($0) } ?? [],
            stderr: (try? String(contentsOfFile: err, encoding: .utf8)) ?? "", timedOut: !finished)
    }
}

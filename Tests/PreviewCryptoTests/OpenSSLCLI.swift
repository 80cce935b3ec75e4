import Foundation
import PreviewTestSupport

/// Runs the `openssl` command-line tool in a scratch directory, to check our keys and
/// signatures against an independent implementation.
final class OpenSSLCLI {
    let directory: URL

    init() throws {
        directory = URL(
            fileURLWithPath: try TestPaths.makeTemporaryDirectory(prefix: "sp-crypto"), isDirectory: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(name))
    }

    func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: directory.appendingPathComponent(name)))
    }

    func readText(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// Runs `openssl arguments...` in the scratch directory and returns its exit status
    /// (SIGKILLed, status 137, after 60 s).
    @discardableResult
    func run(_ arguments: [String]) throws -> Int32 {
        try ProcessResult.run(["/usr/bin/openssl"] + arguments, timeout: 60, workingDirectory: directory.path).status
    }

    /// Like `run`, but a failure is an error.
    func must(_ arguments: [String]) throws {
        let status = try run(arguments)
        guard status == 0 else { throw CLIFailure(arguments: arguments, status: status) }
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    var arguments: [String]
    var status: Int32
    var description: String { "openssl \(arguments.joined(separator: " ")) exited \(status)" }
}

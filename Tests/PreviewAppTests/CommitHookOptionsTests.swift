import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("serve's --commit-hook-* options and the signing secret file")
struct CommitHookOptionsTests {
    func serveOptions(_ arguments: [String], environment: [String: String] = [:]) throws -> ServeOptions {
        let parsed = try Command.parse(["serve"] + arguments, environment: environment).get()
        guard case .serve(let options) = parsed else { throw UsageError("not serve: \(parsed)") }
        return options
    }

    func usageError(_ arguments: [String]) throws -> String {
        "\(try #require(throws: UsageError.self) { try serveOptions(arguments) })"
    }

    @Test(
        "no hook by default; the URL and the secret file from flags or the environment; timeout 5, fail closed, refusals kept"
    )
    func parses() throws {
        #expect(try serveOptions([]).commitHook == nil)
        var expected = CommitHookOptions(url: "https://mod.example/hook", secretFile: "/run/hook")
        #expect(
            try serveOptions(
                [],
                environment: [
                    "STREAMPREVIEW_COMMIT_HOOK_URL": "https://mod.example/hook",
                    "STREAMPREVIEW_COMMIT_HOOK_SECRET_FILE": "/run/hook",
                ]
            ).commitHook == expected)
        expected.timeoutSeconds = 60
        expected.failOpen = true
        expected.recheckRefused = true
        #expect(
            try serveOptions([
                "--commit-hook-url", "https://mod.example/hook", "--commit-hook-secret-file", "/run/hook",
                "--commit-hook-timeout", "60", "--commit-hook-fail-open", "--commit-hook-recheck-refused",
            ]).commitHook == expected)
        expected.failOpen = false
        #expect(
            try serveOptions(
                ["--commit-hook-timeout", "60"],
                environment: [
                    "STREAMPREVIEW_COMMIT_HOOK_URL": "https://mod.example/hook",
                    "STREAMPREVIEW_COMMIT_HOOK_SECRET_FILE": "/run/hook",
                    "STREAMPREVIEW_COMMIT_HOOK_RECHECK_REFUSED": "true",
                ]
            ).commitHook == expected)
    }

    @Test("a URL without a secret file, a timeout outside 1-60 s, a URL that is not http(s), or a hook flag alone")
    func refusals() throws {
        let hook = ["--commit-hook-url", "http://127.0.0.1:9/hook"]
        #expect(try usageError(hook).contains("needs --commit-hook-secret-file"))
        let secret = ["--commit-hook-secret-file", "/run/hook"]
        for timeout in ["0", "61", "1.5"] {
            #expect(try usageError(hook + secret + ["--commit-hook-timeout", timeout]).contains("commit-hook-timeout"))
        }
        for url in ["ftp://mod.example/hook", "http://", "https:///hook", "mod.example/hook"] {
            #expect(try usageError(["--commit-hook-url", url] + secret).contains("http:// or https://"), "\(url)")
        }
        let switches = [["--commit-hook-fail-open"], ["--commit-hook-recheck-refused"]]
        for alone in [secret, ["--commit-hook-timeout", "5"]] + switches {
            #expect(try usageError(alone).contains("needs --commit-hook-url"), "\(alone)")
        }
    }

    @Test("the secret file: one secret a line (current first), each at least 32 bytes, at most 4")
    func secretFile() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-hook-secret")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/secret"
        func write(_ text: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
        let current = String(repeating: "c", count: 32)
        let old = String(repeating: "o", count: 40)
        try write("  \(current) \r\n\n\(old)\n")
        #expect(try SigningSecretFile.read(path, what: "hook secret") == [Array(current.utf8), Array(old.utf8)])
        try write(current + "\n" + String(repeating: "s", count: 31))
        let short = try #require(throws: AppError.self) { try SigningSecretFile.read(path, what: "hook secret") }
        #expect("\(short)".contains("secret 2 is 31 bytes") && short.exitCode == .config)
        try write(Array(repeating: current, count: 5).joined(separator: "\n"))
        #expect(throws: AppError.self) { try SigningSecretFile.read(path, what: "hook secret") }
        #expect(throws: AppError.self) { try SigningSecretFile.read(directory + "/missing", what: "hook secret") }
    }
}

import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `upload --progress`, `--quiet` and `--retries`: the defaults, what each value means, and the
/// contradictions refused as usage errors.
@Suite struct TransferOptionsTests {
    static let tail = ["--server", "http://127.0.0.1:1", "--token", "t", "--stream", "42", "c.mp4", "t.jpg"]

    func transfer(_ arguments: [String], environment: [String: String] = [:]) throws -> TransferOptions {
        let parsed = try Command.parse(["upload"] + arguments + Self.tail, environment: environment).get()
        guard case .upload(let options) = parsed else { throw UsageError("not upload: \(parsed)") }
        return options.transfer
    }

    func failure(_ arguments: [String]) -> String? {
        guard case .failure(let error) = Command.parse(["upload"] + arguments + Self.tail, environment: [:]) else {
            return nil
        }
        return error.message
    }

    @Test func byDefaultProgressFollowsTheTerminalAndFiveRetriesAreAllowed() throws {
        let defaults = try transfer([])
        #expect(defaults.progress == .auto && defaults.retries == 5)
        #expect(defaults.reporterMode(standardErrorIsTerminal: true) == .bar)
        #expect(defaults.reporterMode(standardErrorIsTerminal: false) == .plain)
    }

    @Test(arguments: [
        (["--progress", "bar"], UploadProgressReporter.Mode.bar), (["--progress=plain"], .plain),
        (["--progress", "none"], .none), (["--quiet"], .none), (["--quiet", "--progress", "none"], .none),
        (["--quiet=false", "--progress", "bar"], .bar),
    ])
    func aChosenModeHoldsWhateverStderrIs(arguments: [String], mode: UploadProgressReporter.Mode) throws {
        let options = try transfer(arguments)
        #expect(options.reporterMode(standardErrorIsTerminal: true) == mode)
        #expect(options.reporterMode(standardErrorIsTerminal: false) == mode)
    }

    @Test func retriesComeFromTheFlagOrTheEnvironment() throws {
        #expect(try transfer(["--retries", "0"]).retries == 0)
        #expect(try transfer(["--retries", "20"]).retries == 20)
        #expect(try transfer([], environment: ["STREAMPREVIEW_RETRIES": "2"]).retries == 2)
        #expect(try transfer(["--retries", "7"], environment: ["STREAMPREVIEW_RETRIES": "2"]).retries == 7)
    }

    @Test func badValuesAndContradictionsAreUsageErrors() {
        #expect(failure(["--progress", "fancy"])?.contains("auto, bar, plain or none") == true)
        #expect(failure(["--quiet", "--progress", "bar"])?.contains("--quiet") == true)
        #expect(failure(["--quiet=maybe"])?.contains("true or false") == true)
        #expect(failure(["--retries", "-1"])?.contains("0 to 20") == true)
        #expect(failure(["--retries", "21"])?.contains("0 to 20") == true)
        #expect(failure(["--retries", "many"])?.contains("--retries") == true)
        #expect(
            StreamPreviewCLI.main(arguments: ["upload", "--progress", "fancy"] + Self.tail, environment: [:]) == .usage)
    }

    @Test func theHelpNamesTheFlagsTheRetryRulesAndTheExitCodes() throws {
        guard case .help(let text) = try Command.parse(["upload", "--help"], environment: [:]).get() else {
            Issue.record("upload --help is not help")
            return
        }
        for fragment in ["--progress", "--quiet", "--retries", "Retry-After", "409 or 412", "75"] {
            #expect(text.contains(fragment), "\(fragment)")
        }
    }
}

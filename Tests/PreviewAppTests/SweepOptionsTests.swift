import Testing

@testable import PreviewApp
@testable import PreviewServer

/// `sweep`'s switches: `--flag=false` means false, and a value that is neither true nor false is
/// a usage error (exit 64), never "given, so on".
@Suite struct SweepOptionsTests {
    func sweepOptions(_ arguments: [String]) throws -> SweepOptions {
        let parsed = try Command.parse(["sweep"] + arguments, environment: [:]).get()
        guard case .sweep(let options) = parsed else { throw UsageError("not sweep: \(parsed)") }
        return options
    }

    @Test(arguments: [
        ([String](), false),
        (["--dry-run"], true),
        (["--dry-run=true"], true),
        (["--dry-run=false"], false),
    ])
    func dryRunIsWhatItsValueSays(arguments: [String], dryRun: Bool) throws {
        #expect(try sweepOptions(arguments).dryRun == dryRun)
    }

    @Test(arguments: [
        ["--dry-run=garbage"], ["--dry-run="], ["--dry-run=False"], ["--dry-run=1"], ["--dry-run", "false"],
    ])
    func aSwitchGivenAnyOtherValueIsAUsageErrorExit64(arguments: [String]) {
        #expect(StreamPreviewCLI.main(arguments: ["sweep"] + arguments, environment: [:]) == .usage)
        #expect(ExitCode.usage.rawValue == 64)
    }
}

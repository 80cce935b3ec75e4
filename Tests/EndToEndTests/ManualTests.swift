import Foundation
import PreviewTestSupport
import Testing

/// The manual (docs/manual) against the binary: every flag and environment variable that a
/// command's `--help` names is in the manual, so neither can drift from the other; and the
/// README stays a front door that links into it.
@Suite("The manual covers the binary")
struct ManualTests {
    static func manual() throws -> String {
        let folder = TestPaths.repositoryRoot + "/docs/manual"
        let pages = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md") }
        #expect(pages.count > 10)
        return try pages.sorted().map { try String(contentsOfFile: folder + "/" + $0, encoding: .utf8) }
            .joined(separator: "\n")
    }

    /// The commands `streampreview --help` lists (two spaces, a name, spaces, its summary).
    static func commands() throws -> [String] {
        let help = try ServiceProcess.runBinary(["--help"])
        try #require(help.status == 0, "\(help.stderr)")
        return (help.stdout + help.stderr).split(separator: "\n").compactMap { line in
            line.wholeMatch(of: #/ {2}([a-z]+) {2,}\S.*/#).map { String($0.1) }
        }
    }

    /// What `text` names that the manual lacks: `--flag`s and `STREAMPREVIEW_` variables.
    static func missing(from manual: String, named text: String) -> [String] {
        var names = Set(text.matches(of: /--[a-z][a-z0-9-]+/).map { String($0.0) })
        names.formUnion(text.matches(of: /STREAMPREVIEW_[A-Z0-9_]+/).map { String($0.0) })
        names.remove("--help")
        return names.sorted().filter { name in
            // A flag counts where the manual writes it whole: not as the start of a longer one.
            manual.ranges(of: name).contains { range in
                range.upperBound == manual.endIndex
                    || !(manual[range.upperBound].isLetter || manual[range.upperBound].isNumber
                        || manual[range.upperBound] == "-" || manual[range.upperBound] == "_")
            } == false
        }
    }

    @Test("every flag and variable of every command's --help is in the manual")
    func everyFlagIsDocumented() throws {
        let manual = try Self.manual()
        let commands = try Self.commands()
        #expect(Set(["serve", "sweep", "token", "upload", "presign", "capture", "webhooks"]).isSubset(of: commands))
        for command in commands {
            let help = try ServiceProcess.runBinary([command, "--help"])
            #expect(help.status == 0, "\(command) --help: \(help.stderr)")
            let text = help.stdout + help.stderr
            #expect(text.contains("--"), "\(command) --help names no flag")
            #expect(Self.missing(from: manual, named: text) == [], "streampreview \(command)")
        }
    }

    @Test("a flag the manual lacks is reported, and one that only starts a longer flag does not count")
    func missingFlagIsFound() {
        let manual = "`--grace-period` and `--port`, STREAMPREVIEW_PORT."
        #expect(
            Self.missing(from: manual, named: "--port --grace [env STREAMPREVIEW_PORT] STREAMPREVIEW_GRACE")
                == ["--grace", "STREAMPREVIEW_GRACE"])
    }

    @Test("the README is a front door: under 250 lines, linking every page of the manual")
    func readmeIsAFrontDoor() throws {
        let readme = try String(contentsOfFile: TestPaths.repositoryRoot + "/README.md", encoding: .utf8)
        #expect(readme.split(separator: "\n", omittingEmptySubsequences: false).count < 250)
        let folder = TestPaths.repositoryRoot + "/docs/manual"
        for page in try FileManager.default.contentsOfDirectory(atPath: folder) where page.hasSuffix(".md") {
            #expect(readme.contains("(docs/manual/\(page))"), "the README does not link \(page)")
        }
    }
}

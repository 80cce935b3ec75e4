import Foundation
import PreviewTestSupport
import Testing

/// The README's curl walk-through, run verbatim (bar the port and the binary's path) against
/// a fresh server, so the documentation cannot drift from the product.
@Suite struct ReadmeWalkthroughTests {
    @Test func theReadmeWalkthroughWorksAsWritten() throws {
        let readme = try String(contentsOfFile: TestPaths.repositoryRoot + "/README.md", encoding: .utf8)
        let block = try #require(Self.bashBlock(in: readme), "README.md has no ```bash block")
        #expect(block.contains("S=http://127.0.0.1:8080\n") && block.contains("SP=.build/release/streampreview\n"))

        let service = try ServiceProcess()
        defer { _ = service.stop() }
        let work = try TestPaths.makeTemporaryDirectory(prefix: "sp-readme")
        defer { try? FileManager.default.removeItem(atPath: work) }
        // `token` without --data-dir reads ./.streampreview, as in the README; the sample
        // media sit where they do in the repository.
        try FileManager.default.createSymbolicLink(
            atPath: work + "/.streampreview", withDestinationPath: service.dataDirectory)
        try FileManager.default.createSymbolicLink(
            atPath: work + "/Tests", withDestinationPath: TestPaths.repositoryRoot + "/Tests")
        let script =
            "set -euo pipefail\n"
            + block.replacingOccurrences(of: "S=http://127.0.0.1:8080\n", with: "S=\(service.baseURL)\n")
            .replacingOccurrences(
                of: "SP=.build/release/streampreview\n", with: "SP=\(try ServiceProcess.binaryPath())\n")

        // stderr goes to a file of its own; the checks below read stdout, where the README's output goes.
        let run = try ProcessResult.run(["/bin/bash", "-c", script], timeout: 120, workingDirectory: work)
        let text = run.stdout
        #expect(!run.timedOut, "walk-through still running after 120 s:\n\(text)\n\(run.stderr)")
        #expect(run.status == 0, "walk-through failed:\n\(text)\n\(run.stderr)")
        #expect(text.contains("\"previewVersion\": \"1\""))
        #expect(text.contains("304\n"), "If-None-Match with the feed's ETag gives 304")
        #expect(text.contains("{\"liked\":true,\"likes\":\"1\"}"))
        #expect(text.contains("\"seen\": true"))
        #expect(text.contains("clip bytes match"))
        #expect(text.contains("HTTP/1.1 206 Partial Content"))
        #expect(text.contains("\"previewVersion\":\"2\""), "the bundled upload client commits version 2")
        #expect(text.hasSuffix("204\n0\n"), "after DELETE the feed is empty:\n\(text)")
    }

    static func bashBlock(in markdown: String) -> String? {
        guard let start = markdown.range(of: "```bash\n"),
            let end = markdown.range(of: "\n```", range: start.upperBound..<markdown.endIndex)
        else { return nil }
        return String(markdown[start.upperBound..<end.lowerBound]) + "\n"
    }
}

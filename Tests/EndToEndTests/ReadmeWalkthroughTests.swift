import Foundation
import PreviewTestSupport
import Testing

/// The README's curl walk-through, run verbatim (bar the port and the binary's path) against
/// a fresh server, so the documentation cannot drift from the product.
@Suite struct ReadmeWalkthroughTests {
    @Test func theReadmeWalkthroughWorksAsWritten() throws {
        let readme = try String(contentsOfFile: Self.repositoryRoot + "/README.md", encoding: .utf8)
        let block = try #require(Self.bashBlock(in: readme), "README.md has no ```bash block")
        #expect(block.contains("S=http://127.0.0.1:8080\n") && block.contains("SP=.build/release/streampreview\n"))

        let service = try ServiceProcess()
        defer { _ = service.stop() }
        let work = try ServiceProcess.makeTemporaryDirectory(prefix: "sp-readme")
        defer { try? FileManager.default.removeItem(atPath: work) }
        // `token` without --data-dir reads ./.streampreview, as in the README; the sample
        // media sit where they do in the repository.
        try FileManager.default.createSymbolicLink(
            atPath: work + "/.streampreview", withDestinationPath: service.dataDirectory)
        try FileManager.default.createSymbolicLink(
            atPath: work + "/Tests", withDestinationPath: Self.repositoryRoot + "/Tests")
        let script =
            "set -euo pipefail\n"
            + block.replacingOccurrences(of: "S=http://127.0.0.1:8080\n", with: "S=\(service.baseURL)\n")
            .replacingOccurrences(
                of: "SP=.build/release/streampreview\n", with: "SP=\(try ServiceProcess.binaryPath())\n")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "walk-through failed:\n\(text)")
        #expect(text.contains("\"previewVersion\": \"1\""))
        #expect(text.contains("304\n"), "If-None-Match with the feed's ETag gives 304")
        #expect(text.contains("{\"liked\":true,\"likes\":\"1\"}"))
        #expect(text.contains("\"seen\": true"))
        #expect(text.contains("clip bytes match"))
        #expect(text.contains("HTTP/1.1 206 Partial Content"))
        #expect(text.contains("\"previewVersion\":\"2\""), "the bundled upload client commits version 2")
        #expect(text.hasSuffix("204\n0\n"), "after DELETE the feed is empty:\n\(text)")
    }

    static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    static func bashBlock(in markdown: String) -> String? {
        guard let start = markdown.range(of: "```bash\n"),
            let end = markdown.range(of: "\n```", range: start.upperBound..<markdown.endIndex)
        else { return nil }
        return String(markdown[start.upperBound..<end.lowerBound]) + "\n"
    }
}

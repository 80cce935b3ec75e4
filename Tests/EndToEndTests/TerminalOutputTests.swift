import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// What a hook says reaches people: through `streampreview upload` on a terminal, and as labels
/// in every app's feed. Neither may carry characters that restyle a terminal or reverse text.
@Suite("Hook text on terminals and in labels")
struct TerminalOutputTests {
    @Test(
        "streampreview upload prints a hook's refusal with its ESC, BEL, C1 and U+202E characters escaped, never raw"
    )
    func uploadEscapesTheHooksReason() throws {
        let reason = #"\u001b]0;owned\u0007\u001b[2J\u202egpj.exe\u009b31m"#
        let hook = try HookedService(script: [.json(#"{"allow":false,"reason":"\#(reason)"}"#)])
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-tty")
        defer { try? FileManager.default.removeItem(atPath: folder) }  // best effort: a leftover in /tmp is harmless
        try Data(TestMedia.mp4(size: 3000, seed: 1, durationMs: 7500, width: 320, height: 180))
            .write(to: URL(fileURLWithPath: folder + "/clip.mp4"))
        try Data(TestMedia.jpeg(seed: 1)).write(to: URL(fileURLWithPath: folder + "/thumb.jpg"))

        let result = try hook.service.run([
            "upload", "--server", hook.service.baseURL, "--token", hook.token, "--stream", "42", "--quiet",
            folder + "/clip.mp4", folder + "/thumb.jpg",
        ])
        #expect(result.status == 1, "refused: \(result.stderr)")
        #expect(result.stderr.contains("422 rejected_by_hook: " + reason), "\(result.stderr.debugDescription)")
        let raw = result.stderr.unicodeScalars.filter { TerminalText.isUnsafe($0) && $0 != "\n" }
        #expect(raw.isEmpty, "raw on stderr: \(raw.map { String($0.value, radix: 16) })")
        #expect(result.stdout.isEmpty)
    }

    @Test("A hook's label with U+202E is no verdict: 503 hook_unavailable, nothing published with it")
    func bidirectionalLabelIsRefused() throws {
        let hook = try HookedService(script: [.json(#"{"allow":true,"labels":{"title":"evil\u202egpj.exe"}}"#)])
        let reply = try hook.commit(try hook.upload(seed: 1))
        expectError(reply, status: 503, code: "hook_unavailable")
        #expect(try hook.api.feedItems().isEmpty)
        #expect(try hook.api.metricValue(#"streampreview_commit_hook_calls_total{outcome="error"}"#) == "1")
    }
}

import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// `streampreview upload` against a real serve whose signed object URLs lead through a scripted proxy that
/// fails on purpose: resets mid-body, 503s, lost answers, a refusal, a URL running out. Commit checks what the
/// store holds, so an upload that "succeeds" with the wrong bytes would fail here.
@Suite struct UploadRetryTests {
    @Test func aConnectionResetMidBodyIsRetriedFromTheFirstByteAndTheStoreHoldsTheFile() throws {
        let setup = try UploadThroughProxy { step in
            step.movieAttempt == 1 ? .resetMidBody(afterBytes: 256 * 1024) : .forward
        }
        let result = try setup.upload()
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let item = try setup.printedItem(result)
        #expect(item.streamId == 42 && item.previewVersion == 1)
        #expect(try setup.served(item.movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 2)
        let retries = result.stderrLines(startingWith: "retrying ")
        #expect(retries.count == 1, "\(result.stderr)")
        #expect(retries.first?.hasPrefix("retrying PUT of clip.mp4 in ") == true, "\(retries)")
        #expect(retries.first?.hasSuffix(" s: connection reset (attempt 2 of 6)") == true, "\(retries)")
    }

    @Test func aWriteTheStoreStillThinksRunningIsWaitedOutNotTakenForStored() throws {
        let setup = try UploadThroughProxy { step in
            switch step.movieAttempt {
            case 1: return .abandonMidBody(afterBytes: 256 * 1024)
            case 2: return .forward  // the store still has attempt 1 open: 409 upload_in_progress
            case .some:
                step.proxy.releaseHeld()  // attempt 1's connection breaks; the store drops that upload
                return .forward
            case nil: return .forward
            }
        }
        let result = try setup.upload()
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(try setup.served(try setup.printedItem(result).movieUrl) == setup.movie)
        let retries = result.stderrLines(startingWith: "retrying PUT of clip.mp4")
        #expect(retries.first?.hasSuffix(": connection reset (attempt 2 of 6)") == true, "\(retries)")
        #expect(retries.dropFirst().first?.contains(": 409 upload_in_progress: ") == true, "\(retries)")
        #expect(!result.stderr.contains("earlier attempt stored it"), "\(result.stderr)")
        #expect(setup.movieAttempts >= 3)
    }

    @Test func twoServiceUnavailableAnswersAreRetriedAfterTheirRetryAfter() throws {
        let setup = try UploadThroughProxy { step in
            guard let attempt = step.movieAttempt, attempt <= 2 else { return .forward }
            return UploadThroughProxy.answer(503, code: "unavailable", message: "the store is busy", retryAfter: 1)
        }
        let result = try setup.upload()
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(try setup.served(try setup.printedItem(result).movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 3)
        // The jittered backoff (at most 0.5 s, then 1 s) is below the 1 s the store asked for.
        #expect(
            result.stderrLines(startingWith: "retrying ") == [
                "retrying PUT of clip.mp4 in 1.0 s: 503 unavailable: the store is busy (attempt 2 of 6)",
                "retrying PUT of clip.mp4 in 1.0 s: 503 unavailable: the store is busy (attempt 3 of 6)",
            ])
    }

    @Test func aConflictOnARetryAfterALostAnswerGoesOnToCommitTheStoredObject() throws {
        let setup = try UploadThroughProxy { step in
            step.movieAttempt == 1 ? .forwardThenReset : .forward
        }
        let result = try setup.upload()
        try #require(result.status == 0, "stderr: \(result.stderr)")
        #expect(try setup.served(try setup.printedItem(result).movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 2)
        #expect(result.stderrLines(startingWith: "retrying ").count == 1)
        #expect(
            result.stderrLines(startingWith: "PUT of clip.mp4: ") == [
                "PUT of clip.mp4: 409 object_exists: this object is already stored; objects are written once "
                    + "(commit the upload) on attempt 2: an earlier attempt stored it"
            ])
    }

    @Test func aRefusalIsReportedAtOnceWithTheServersCode() throws {
        // The server's clock runs an hour ahead of the client's: the URL is expired when the PUT arrives.
        let setup = try UploadThroughProxy(testClock: true) { step in
            if step.movieAttempt == 1 { try? step.service.shiftClock(by: 3600) }
            return .forward
        }
        let result = try setup.upload(sharedClock: false)
        #expect(result.status == 1)
        #expect(
            result.stderrLines(startingWith: "streampreview: ") == [
                "streampreview: PUT of clip.mp4 failed: 403 url_expired: this URL has expired"
            ], "\(result.stderr)")
        #expect(result.stderr.hasSuffix("this URL has expired\n") && !result.stderr.contains("retrying"))
        #expect(setup.movieAttempts == 1)
        #expect(result.stdout.isEmpty)
    }

    @Test func noRetryStartsWhenTheURLIsAboutToExpire() throws {
        // Each PUT is answered 503 while the shared clock jumps to 3 s before the URL's expiry.
        let setup = try UploadThroughProxy(testClock: true) { step in
            guard step.movieAttempt != nil else { return .forward }
            try? step.service.shiftClock(by: 900 - 3)
            return UploadThroughProxy.answer(503, code: "unavailable", message: "the store is busy")
        }
        let result = try setup.upload()
        #expect(result.status == 75, "stderr: \(result.stderr)")
        #expect(setup.movieAttempts == 1)
        #expect(result.stderrLines(startingWith: "retrying ").isEmpty)
        let error = try #require(result.stderrLines(startingWith: "streampreview: ").first)
        #expect(
            error.hasPrefix(
                "streampreview: PUT of clip.mp4 failed after 1 attempt: 503 unavailable: the store is busy; "
                    + "not retried, as its URL expires in "),
            "\(error)")
    }

    @Test func quietShowsNoProgressNorRetriesButStillTheError() throws {
        let setup = try UploadThroughProxy { step in
            switch step.movieAttempt {
            case 1: return UploadThroughProxy.answer(503, code: "unavailable", message: "busy", retryAfter: 0)
            case 2: return .forward
            case .some: return UploadThroughProxy.answer(400, code: "invalid_argument", message: "no, thanks")
            case nil: return .forward
            }
        }
        let quiet = try setup.upload(["--quiet"])
        try #require(quiet.status == 0, "stderr: \(quiet.stderr)")
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(try setup.printedItem(quiet).streamId == 42)

        let refused = try setup.upload(["--quiet"])
        #expect(refused.status == 1)
        #expect(refused.stderr == "streampreview: PUT of clip.mp4 failed: 400 invalid_argument: no, thanks\n")
    }

    @Test func withoutATerminalProgressIsPlainLinesOnStderrAndTheItemAloneOnStdout() throws {
        let setup = try UploadThroughProxy { _ in .forward }
        let result = try setup.upload()
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "uploading clip.mp4 (4.0 MiB)")
        #expect(lines.contains { $0.hasPrefix("uploaded clip.mp4: 4.0 MiB in ") })
        #expect(lines.last?.hasPrefix("uploaded thumb.jpg: 900 B in ") == true)
        #expect(lines.allSatisfy { $0.hasPrefix("uploading ") || $0.hasPrefix("uploaded ") || $0.contains("%") })
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
        #expect(try setup.printedItem(result).streamId == 42, "stdout is the item and nothing else")
    }

    @Test func onATerminalEachFileGetsABarRedrawnInPlace() throws {
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "util-linux script gives a terminal")
        let setup = try UploadThroughProxy { _ in .forward }
        let command =
            ([try ServiceProcess.binaryPath(), "upload", "--server", setup.server, "--token", setup.token]
            + ["--stream", "42", setup.clipPath, setup.thumbnailPath]).map { "'\($0)'" }.joined(separator: " ")
        let result = try ProcessResult.run(
            [script, "-qec", command, "/dev/null"], timeout: 60, environment: ["TERM": "xterm", "COLUMNS": "100"])
        try #require(result.status == 0, "output: \(result.stdout) \(result.stderr)")
        let screen = result.stdout
        #expect(screen.contains("\rclip.mp4 [>"), "the bar starts at 0%: \(screen.debugDescription)")
        #expect(screen.contains("] 100% 4.0 MiB  "), "\(screen.debugDescription)")
        #expect(screen.contains("\rthumb.jpg ["), "\(screen.debugDescription)")
        #expect(screen.contains("\u{1B}[K"))
        #expect(!screen.contains("uploading clip.mp4"), "no plain lines on a terminal")
        #expect(screen.contains(#""streamId":"42""#))
    }

    @Test func aCommitAnswered503IsRepeatedButALostPostIsNot() throws {
        let setup = try UploadThroughProxy(apiThroughProxy: true) { step in
            switch (step.request.path, step.pathAttempt) {
            case ("/api/preview/commit", 1):
                return UploadThroughProxy.answer(503, code: "unavailable", message: "Redis is busy", retryAfter: 1)
            case ("/api/preview/post", 2):
                return .forwardThenReset  // the server issues URLs; the client never hears of them
            default: return .forward
            }
        }
        let committed = try setup.upload()
        try #require(committed.status == 0, "stderr: \(committed.stderr)")
        #expect(setup.attempts("POST", "/api/preview/commit") == 2)
        #expect(
            committed.stderrLines(startingWith: "retrying ") == [
                "retrying POST /api/preview/commit in 1.0 s: 503 unavailable: Redis is busy (attempt 2 of 6)"
            ])

        let lost = try setup.upload()
        #expect(lost.status == 75)
        #expect(setup.attempts("POST", "/api/preview/post") == 2, "one post per run: the second is not repeated")
        #expect(
            lost.stderr.hasSuffix(
                "streampreview: POST /api/preview/post failed: connection reset "
                    + "(not repeated: the server may have issued URLs already)\n"),
            "\(lost.stderr)")
    }
}

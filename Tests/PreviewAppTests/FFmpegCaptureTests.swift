import PreviewCore
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct FFmpegCaptureCheckTests {
    @Test func aWholeFastStartClipOfEnoughLengthPasses() throws {
        let clip = try FFmpegClips.mp4(fastStart: true)  // 2 s, 320x240
        let info = try FFmpegCapture.check(clip, seconds: 2)
        #expect(info.width == 320 && info.height == 240 && info.fastStart)
        #expect(info.durationMs >= 1900)
    }

    @Test func aShortClipMeansTheSourceEndedOrStalled() throws {
        let clip = try FFmpegClips.mp4(fastStart: true)
        #expect(throws: CaptureFailure.self) { try FFmpegCapture.check(clip, seconds: 3) }
        do {
            _ = try FFmpegCapture.check(clip, seconds: 5)
            Issue.record("a 2 s clip passed for 5 s")
        } catch {
            guard case .source(let reason) = error else { throw error }
            #expect(reason.contains("only 2.0") && reason.contains("5 s asked"))
        }
    }

    @Test func aClipThatIsNotFastStartOrNotAnMP4IsRefused() throws {
        #expect(throws: CaptureFailure.self) {
            try FFmpegCapture.check(try FFmpegClips.mp4(fastStart: false), seconds: 2)
        }
        #expect(throws: CaptureFailure.self) { try FFmpegCapture.check(TestMedia.junk(), seconds: 2) }
        #expect(throws: CaptureFailure.self) { try FFmpegCapture.check(TestMedia.mp4WithoutMovieBox(), seconds: 2) }
    }

    @Test func errorsNeverRepeatTheSourceWhichMayHoldAStreamKey() {
        let reason = "ffmpeg failed: rtmp://ingest/live/sk_123: Connection refused"
        #expect(
            CaptureCommand.redact(reason, source: "rtmp://ingest/live/sk_123")
                == "ffmpeg failed: <source>: Connection refused")
    }

    @Test func onceExitsAsUploadDoesForTheServerAndUnavailableForTheSourceAndLinesAreLogfmt() {
        #expect(CaptureCommand.exitCode(failedAt: .upload) == .tempFailure)
        #expect(CaptureCommand.exitCode(failedAt: .source) == .unavailable)
        #expect(
            CaptureCommand.errorLine(7, .source, #"ffmpeg said "no""#, wait: 2.2)
                == #"error stream=7 stage=source reason="ffmpeg said \"no\"" retry_in=3s"#)
        #expect(
            CaptureCommand.errorLine(7, .upload, "refused", wait: nil) == "error stream=7 stage=upload reason=refused")
        // A hook's reason, quoted by the server, is escaped before it reaches a terminal.
        #expect(
            CaptureCommand.errorLine(7, .upload, "422 rejected_by_hook: \u{1B}[2J\u{202E}x\u{061C}", wait: nil)
                == #"error stream=7 stage=upload reason="422 rejected_by_hook: \u001b[2J\u202ex\u061c""#)
    }

    @Test func aStopEndsAWaitAtOnce() {
        let stop = CaptureStop()
        #expect(!stop.sleep(seconds: 0.01))
        stop.request("SIGTERM")
        stop.request("SIGINT")
        #expect(stop.sleep(seconds: 3600))
        #expect(stop.requested == "SIGTERM")
    }
}

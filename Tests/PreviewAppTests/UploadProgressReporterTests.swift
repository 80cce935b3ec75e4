import Synchronization
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// What the upload client writes to stderr in each mode, with a stepped clock: the bar redraws
/// at most 10 times a second however often libcurl reports, plain mode writes whole lines a log
/// can keep, and none writes nothing.
@Suite struct UploadProgressReporterTests {
    /// A reporter writing into `output`, on a clock the test moves.
    final class Harness: Sendable {
        let output = Collected<String>()
        let now = SteppedClock()
        let reporter: UploadProgressReporter

        init(_ mode: UploadProgressReporter.Mode, width: Int = 100) {
            let output = self.output
            let now = self.now
            reporter = UploadProgressReporter(
                mode: mode, write: { text in output.append(text) }, clock: { now.reading }, width: { width })
        }

        var text: String { output.all.joined() }
        var writes: Int { output.all.count }
        var last: String? { output.all.last }
        /// Sets the clock to `seconds` after the start (computed, not summed: no drift).
        func at(_ seconds: Double) { now.set(100 + seconds) }
    }

    @Test func theBarRedrawsAtMostTenTimesASecondWhateverTheCallbackRate() {
        let harness = Harness(.bar)
        harness.reporter.begin(name: "clip.mp4", total: 100_000, attempt: 1)
        #expect(harness.writes == 1, "the 0% bar is drawn at once")
        // libcurl reports every millisecond for two seconds.
        for step in 1...2000 {
            harness.at(Double(step) / 1000)
            harness.reporter.update(sent: Int64(step * 50))
        }
        #expect(harness.writes - 1 == 20, "one redraw per 100 ms, not 2000")
        #expect(harness.text.hasPrefix("\rclip.mp4 [>"))
        #expect(!harness.text.contains("\n"), "a bar is redrawn in place until it finishes")
        harness.reporter.finish()
        #expect(harness.text.hasSuffix("] 100% 97.7 KiB  48.8 KiB/s  in 2.0 s\u{1B}[K\n"))
    }

    @Test func updatesWithinATenthOfASecondDrawOnceAndTheNextTenthDrawsAgain() {
        let harness = Harness(.bar)
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 1)
        harness.at(0.1)
        harness.reporter.update(sent: 100)
        harness.at(0.15)
        harness.reporter.update(sent: 200)
        harness.reporter.update(sent: 300)
        #expect(harness.writes == 2)
        harness.at(0.2)
        harness.reporter.update(sent: 400)
        #expect(harness.writes == 3)
        #expect(harness.last?.contains(" 40% ") == true)
    }

    @Test func aRetryNoteClearsTheBarAndTheBarRestartsFromZero() {
        let harness = Harness(.bar)
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 1)
        harness.at(0.2)
        harness.reporter.update(sent: 600)
        harness.reporter.note("retrying PUT of clip.mp4 in 0.5 s: connection reset (attempt 2 of 6)")
        #expect(
            harness.last
                == "\r\u{1B}[Kretrying PUT of clip.mp4 in 0.5 s: connection reset (attempt 2 of 6)\n")
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 2)
        #expect(harness.last?.contains("   0% 0 B of 1000 B") == true)
    }

    @Test func aNoteQuotingAnAnswerHasItsControlAndBidirectionalCharactersEscaped() {
        let harness = Harness(.plain)
        harness.reporter.note("retrying PUT of clip.mp4 in 1.0 s: 503 busy: \u{1B}]0;owned\u{07}\u{202E}\nuploaded x")
        #expect(
            harness.last == #"retrying PUT of clip.mp4 in 1.0 s: 503 busy: \u001b]0;owned\u0007\u202e\u000auploaded x"#
                + "\n")
    }

    @Test func endLineTerminatesABarSoAnErrorStartsOnItsOwnLine() {
        let harness = Harness(.bar)
        harness.reporter.endLine()
        #expect(harness.writes == 0, "nothing on screen, nothing to end")
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 1)
        harness.reporter.endLine()
        #expect(harness.last == "\n")
        harness.reporter.endLine()
        #expect(harness.writes == 2)
    }

    @Test func plainModeWritesTheStartEachQuarterAndTheEndAsWholeLines() {
        let harness = Harness(.plain)
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 1)
        for sent in stride(from: 10, through: 1000, by: 10) {
            harness.at(Double(sent) / 1000)
            harness.reporter.update(sent: Int64(sent))
        }
        harness.reporter.finish()
        let lines = harness.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(
            lines == [
                "uploading clip.mp4 (1000 B)",
                "clip.mp4: 25% (250 B of 1000 B, 1000 B/s, 0:01 left)",
                "clip.mp4: 50% (500 B of 1000 B, 1000 B/s, 0:01 left)",
                "clip.mp4: 75% (750 B of 1000 B, 1000 B/s, 0:01 left)",
                "uploaded clip.mp4: 1000 B in 1.0 s (1000 B/s)",
                "",
            ])
        #expect(!harness.text.contains("\r") && !harness.text.contains("\u{1B}"))
    }

    @Test func plainModeTellsAJumpPastSeveralQuartersOnceAndARetryStartsQuietly() {
        let harness = Harness(.plain)
        harness.reporter.begin(name: "thumb.jpg", total: 900, attempt: 1)
        harness.at(0.5)
        harness.reporter.update(sent: 800)
        harness.reporter.note("retrying PUT of thumb.jpg in 0.4 s: connection reset (attempt 2 of 6)")
        harness.reporter.begin(name: "thumb.jpg", total: 900, attempt: 2)
        harness.at(1.0)
        harness.reporter.update(sent: 900)
        harness.reporter.finish()
        let lines = harness.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.first == "uploading thumb.jpg (900 B)")
        #expect(lines[1].hasPrefix("thumb.jpg: 88% "))
        #expect(lines[2].hasPrefix("retrying PUT of thumb.jpg"))
        #expect(lines[3] == "uploaded thumb.jpg: 900 B in 0.5 s (1.8 KiB/s)")
    }

    @Test func noneWritesNothingNotEvenRetryNotes() {
        let harness = Harness(.none)
        harness.reporter.begin(name: "clip.mp4", total: 1000, attempt: 1)
        harness.reporter.update(sent: 500)
        harness.reporter.note("retrying PUT of clip.mp4 in 0.5 s: connection reset (attempt 2 of 6)")
        harness.reporter.finish()
        harness.reporter.endLine()
        #expect(harness.writes == 0)
    }
}

/// The pure parts under the reporter: the draw limit and the rate over a window.
@Suite struct ProgressMeterTests {
    @Test func theThrottleAllowsOneDrawPerTenthOfASecond() {
        var throttle = ProgressThrottle(maxPerSecond: 10)
        let answers = [5.0, 5.05, 5.0999, 5.1].map { throttle.allows(now: $0) }
        #expect(answers == [true, false, false, true])
        var allowed = 0
        for step in 0..<1000 where throttle.allows(now: 6 + Double(step) * 0.001) { allowed += 1 }
        #expect(allowed == 10)
        throttle.reset()
        let afterReset = throttle.allows(now: 6.9995)
        #expect(afterReset)
    }

    @Test func theRateFollowsTheLastSecondsNotTheWholeTransfer() {
        var meter = RateMeter(window: 3)
        meter.record(sent: 0, at: 0)
        #expect(meter.bytesPerSecond == nil)
        meter.record(sent: 100, at: 0.05)
        #expect(meter.bytesPerSecond == nil, "a twentieth of a second says too little")
        // 1000 B/s for 10 s, then 100 B/s for 5 s.
        for second in 1...10 { meter.record(sent: Int64(second * 1000), at: Double(second)) }
        #expect(meter.bytesPerSecond == 1000)
        for second in 11...15 { meter.record(sent: 10_000 + Int64((second - 10) * 100), at: Double(second)) }
        #expect(meter.bytesPerSecond == 100)
    }
}

/// A clock the test sets.
final class SteppedClock: Sendable {
    private let now = Mutex(100.0)
    var reading: Double { now.withLock { $0 } }
    func set(_ seconds: Double) { now.withLock { $0 = seconds } }
}

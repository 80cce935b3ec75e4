import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The text of upload progress: byte counts, percent, rate and time left, and a bar that fits
/// the terminal's width whatever the width and the file name.
@Suite struct ProgressLineTests {
    static let mib: Int64 = 1 << 20

    static func snapshot(
        name: String = "clip.mp4", sent: Int64, total: Int64, rate: Double? = nil, elapsed: Double = 1
    ) -> ProgressLine.Snapshot {
        ProgressLine.Snapshot(name: name, sent: sent, total: total, rate: rate, elapsed: elapsed)
    }

    @Test(arguments: [
        (Int64(0), "0 B"), (512, "512 B"), (1023, "1023 B"), (1024, "1.0 KiB"), (1536, "1.5 KiB"),
        (10_276_044, "9.8 MiB"), (1 << 30, "1.0 GiB"), (5 << 40, "5120.0 GiB"),
    ])
    func byteCountsUseBinaryUnits(count: Int64, text: String) {
        #expect(ProgressLine.bytes(count) == text)
    }

    @Test(arguments: [
        (0.0, "0:00"), (0.2, "0:01"), (5.0, "0:05"), (59.5, "1:00"), (760.0, "12:40"), (3723.0, "1:02:03"),
    ])
    func timesAreMinutesAndSecondsRoundedUp(seconds: Double, text: String) {
        #expect(ProgressLine.clock(seconds) == text)
    }

    @Test func percentIsRoundedDownSoOnlyTheLastByteMakesAHundred() {
        #expect(ProgressLine.percent(Self.snapshot(sent: 0, total: 1000)) == 0)
        #expect(ProgressLine.percent(Self.snapshot(sent: 429, total: 1000)) == 42)
        #expect(ProgressLine.percent(Self.snapshot(sent: 999, total: 1000)) == 99)
        #expect(ProgressLine.percent(Self.snapshot(sent: 1000, total: 1000)) == 100)
        #expect(ProgressLine.percent(Self.snapshot(sent: 0, total: 0)) == 100)
    }

    @Test(arguments: [(0.013, "0.0 s"), (4.0, "4.0 s"), (59.9, "59.9 s"), (60.0, "1:00"), (65.2, "1:06")])
    func durationsAreSecondsThenMinutes(seconds: Double, text: String) {
        #expect(ProgressLine.duration(seconds) == text)
    }

    @Test func timeLeftIsTheRestAtTheCurrentRate() {
        let half = Self.snapshot(sent: 5 * Self.mib, total: 10 * Self.mib, rate: Double(Self.mib))
        #expect(ProgressLine.timeLeft(half) == 5)
        #expect(ProgressLine.timeLeft(Self.snapshot(sent: 1, total: 10)) == nil)
    }

    @Test func theBarShowsBytesPercentRateAndTimeLeft() {
        let line = ProgressLine.bar(
            Self.snapshot(sent: 4_404_019, total: 10_276_044, rate: 1_153_434), width: 100)
        #expect(
            line == "clip.mp4 [=================>                      ]  42% 4.2 MiB of 9.8 MiB  1.1 MiB/s  0:06 left")
        #expect(line.count == 97, "the bar is at most 40 cells wide")
    }

    @Test func beforeThereIsARateTheRateAndTimeLeftAreDashes() {
        let line = ProgressLine.bar(Self.snapshot(sent: 0, total: 2048), width: 80)
        #expect(line.hasPrefix("clip.mp4 [>"))
        #expect(line.hasSuffix("]   0% 0 B of 2.0 KiB  - B/s  --:-- left"))
    }

    @Test func aFinishedBarIsFullAndSaysHowLongItTook() {
        let line = ProgressLine.bar(
            Self.snapshot(sent: 10 * Self.mib, total: 10 * Self.mib, rate: 1, elapsed: 4), width: 100, finished: true)
        #expect(line == "clip.mp4 [" + String(repeating: "=", count: 40) + "] 100% 10.0 MiB  2.5 MiB/s  in 4.0 s")
    }

    @Test(arguments: [1, 5, 12, 20, 40, 50, 60, 79, 80, 120, 300])
    func theBarNeverReachesTheLastColumn(width: Int) {
        for name in ["a.mp4", "clip.mp4", String(repeating: "long-name-", count: 12) + ".mp4"] {
            for (sent, rate) in [(Int64(0), nil), (5 * Self.mib, 1e6), (10 * Self.mib, 3e9)] as [(Int64, Double?)] {
                let snapshot = Self.snapshot(name: name, sent: sent, total: 10 * Self.mib, rate: rate)
                #expect(ProgressLine.bar(snapshot, width: width).count <= max(width - 1, 1), "\(width) \(name)")
                #expect(ProgressLine.bar(snapshot, width: width, finished: true).count <= max(width - 1, 1))
            }
        }
    }

    @Test func whenNarrowTheBarGoesFirstThenTheMiddleOfTheName() {
        let snapshot = Self.snapshot(name: "a-rather-long-clip-name.mp4", sent: 1, total: 2, rate: 1)
        let wide = ProgressLine.bar(snapshot, width: 120)
        #expect(wide.contains("[") && wide.hasPrefix("a-rather-long-clip-name.mp4 "))
        let noBar = ProgressLine.bar(snapshot, width: 70)
        #expect(!noBar.contains("[") && noBar.hasPrefix("a-rather-long-clip-name.mp4 "))
        let shortName = ProgressLine.bar(snapshot, width: 50)
        #expect(shortName == "a-rath...me.mp4  50% 1 B of 2 B  1 B/s  0:01 left")
    }

    @Test func shorteningKeepsTheStartAndTheExtension() {
        #expect(ProgressLine.shortened("clip.mp4", to: 20) == "clip.mp4")
        #expect(ProgressLine.shortened("a-rather-long-clip-name.mp4", to: 13) == "a-rat...e.mp4")
        #expect(ProgressLine.shortened("abcdef", to: 2) == "ef")
    }

    @Test func barCellsFillInProportion() {
        #expect(ProgressLine.barCells(0, cells: 10) == ">         ")
        #expect(ProgressLine.barCells(0.55, cells: 10) == "=====>    ")
        #expect(ProgressLine.barCells(1, cells: 10) == "==========")
    }

    @Test func plainLinesSayTheSameInWordsForALog() {
        #expect(ProgressLine.plainStart(name: "clip.mp4", total: 10 * Self.mib) == "uploading clip.mp4 (10.0 MiB)")
        let half = Self.snapshot(sent: 5 * Self.mib, total: 10 * Self.mib, rate: Double(Self.mib))
        #expect(ProgressLine.plainProgress(half) == "clip.mp4: 50% (5.0 MiB of 10.0 MiB, 1.0 MiB/s, 0:05 left)")
        let early = Self.snapshot(sent: 1 * Self.mib, total: 4 * Self.mib, rate: nil)
        #expect(ProgressLine.plainProgress(early) == "clip.mp4: 25% (1.0 MiB of 4.0 MiB)")
        let done = Self.snapshot(sent: 10 * Self.mib, total: 10 * Self.mib, elapsed: 4)
        #expect(ProgressLine.plainDone(done) == "uploaded clip.mp4: 10.0 MiB in 4.0 s (2.5 MiB/s)")
    }
}

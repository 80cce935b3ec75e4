import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct CaptureScheduleTests {
    @Test func cyclesStartOneIntervalApart() {
        var schedule = CaptureSchedule(every: 60)
        #expect(schedule.delay(after: .published, elapsed: 7.5) == 52.5)
        #expect(schedule.delay(after: .published, elapsed: 75) == 0, "a long cycle is followed at once, never twice")
    }

    @Test func failuresBackOffUpToTheIntervalAndASuccessResetsThem() {
        var schedule = CaptureSchedule(every: 10)
        let waits = (0..<6).map { _ in schedule.delay(after: .failed, elapsed: 3) }
        #expect(waits == [1, 2, 4, 8, 10, 10])
        #expect(schedule.delay(after: .published, elapsed: 3) == 7)
        #expect(schedule.delay(after: .failed, elapsed: 3) == 1)
    }

    @Test func aRefusedClipWaitsForTheNextIntervalInsteadOfBeingRetried() {
        var schedule = CaptureSchedule(every: 30)
        _ = schedule.delay(after: .failed, elapsed: 1)
        _ = schedule.delay(after: .failed, elapsed: 1)
        #expect(schedule.delay(after: .refused, elapsed: 4) == 26)
        #expect(schedule.delay(after: .refused, elapsed: 4) == 26, "every refusal, not faster and faster")
        #expect(schedule.failures == 0)
    }

    @Test func withoutEveryTheServersRefreshTimeIsTheInterval() {
        var schedule = CaptureSchedule(every: nil)
        #expect(schedule.interval == 60, "before the server said one")
        schedule.heard(refreshAfter: 120)
        #expect(schedule.interval == 120)
        schedule.heard(refreshAfter: 0)
        #expect(schedule.interval == 120, "0 (an older server) says nothing")
        var given = CaptureSchedule(every: 15)
        given.heard(refreshAfter: 120)
        #expect(given.interval == 15, "--every wins")
    }
}

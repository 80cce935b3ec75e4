import Foundation
import Glibc
import PreviewTestSupport
import Synchronization
import Testing

@testable import PreviewHTTPServer

/// Counts instances alive, standing for the request a job holds.
private final class Tracked: Sendable {
    let live: SharedCount

    init(_ live: SharedCount) {
        self.live = live
        live.add()
    }

    deinit { live.add(-1) }
}

@Suite("ResponderPool: a job, and the request it holds, is released once run")
struct ResponderPoolTests {
    @Test("with the queue never empty, live jobs stay bounded while a thousand run")
    func executedJobsAreReleased() throws {
        let pool = try #require(ResponderPool(threadCount: 1))
        defer { pool.shutdown() }
        let live = SharedCount()
        let allowed = SharedCount()  // jobs below this index may finish
        let finished = SharedCount()
        // Runs before the pool's shutdown joins its worker, also when a check fails midway.
        defer { allowed.set(.max) }
        let total = 1_000
        func submit(_ index: Int) -> Bool {
            let tracked = Tracked(live)
            return pool.submit(
                {
                    withExtendedLifetime(tracked) {
                        while allowed.value <= index { usleep(100) }
                        finished.add()
                    }
                }, accepted: {})
        }
        // Three queued ahead of the one running, so the queue never runs empty.
        for index in 0..<3 { try #require(submit(index)) }
        var most = 0
        for index in 0..<total {
            try #require(submit(index + 3))
            allowed.set(index + 1)
            try #require(eventually(within: 30) { finished.value == index + 1 })
            most = max(most, live.value)
        }
        // The queue holds three, one runs, one may be just finished and not yet dropped.
        #expect(most <= 6, "live jobs reached \(most)")
    }
}

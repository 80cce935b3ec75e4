import Foundation
import Synchronization

/// Runs the sweeper every `interval` seconds on its own thread until stopped. Each run drains
/// what is due (bounded by `maxSeconds`); when another process holds the lease, it does nothing.
package final class SweeperLoop: Sendable {
    let sweeper: Sweeper
    let interval: Int64
    let maxSeconds: Double
    /// Where each run's report is recorded.
    let metrics: SweeperMetrics
    private let thread: PeriodicThread

    package init(
        sweeper: Sweeper, interval: Int64, maxSeconds: Double = 300, metrics: SweeperMetrics = SweeperMetrics()
    ) {
        self.sweeper = sweeper
        self.metrics = metrics
        self.interval = interval
        self.maxSeconds = maxSeconds
        thread = PeriodicThread(name: "sweeper", interval: Double(interval))
    }

    package func start() {
        guard interval > 0 else { return }
        thread.start { [self] in
            runOnce()
            return true
        }
    }

    /// Stops the loop and waits until a run in progress has finished its batch, so nothing
    /// the process stops next (Redis, the store) is pulled from under it.
    package func stop() { thread.stop() }

    private func runOnce() {
        do {
            let report = try sweeper.drain(maxSeconds: maxSeconds, now: WallClock.now) { thread.isStopping }
            metrics.record(report)
            if report.didWork || report.stop != .drained && report.stop != .leaseHeld {
                Log.info("sweep", ["result": report.summary, "stop": report.stop.rawValue])
            }
        } catch {
            metrics.recordFailure()
            Log.warn("sweep_failed", ["error": "\(error)"])
        }
    }
}

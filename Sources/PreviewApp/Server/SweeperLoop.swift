import Foundation
import Synchronization

/// Runs the sweeper every `interval` seconds on its own thread until stopped. Each run drains
/// what is due (bounded by `maxSeconds`); when another process holds the lease, it does nothing.
final class SweeperLoop: Sendable {
    let sweeper: Sweeper
    let interval: Int64
    let maxSeconds: Double
    /// Where each run's report is recorded.
    let metrics: SweeperMetrics
    private let stopped = Mutex(false)
    /// Signalled by `stop()` (wakes the wait between runs) and by the thread when it ends.
    private let wakeup = NSCondition()
    private let running = Mutex(false)

    init(sweeper: Sweeper, interval: Int64, maxSeconds: Double = 300, metrics: SweeperMetrics = SweeperMetrics()) {
        self.sweeper = sweeper
        self.metrics = metrics
        self.interval = interval
        self.maxSeconds = maxSeconds
    }

    func start() {
        guard interval > 0 else { return }
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            run()
            wakeup.lock()
            running.withLock { $0 = false }
            wakeup.broadcast()
            wakeup.unlock()
        }
        thread.name = "sweeper"
        thread.start()
    }

    /// Stops the loop and waits until a run in progress has finished its batch, so nothing
    /// the process stops next (Redis, the store) is pulled from under it.
    func stop() {
        stopped.withLock { $0 = true }
        wakeup.lock()
        wakeup.broadcast()
        while running.withLock({ $0 }) { wakeup.wait() }
        wakeup.unlock()
    }

    private func run() {
        while !stopped.withLock({ $0 }) {
            do {
                let report = try sweeper.drain(maxSeconds: maxSeconds, now: WallClock.now) {
                    stopped.withLock { $0 }
                }
                metrics.record(report)
                if report.didWork || report.stop != .drained && report.stop != .leaseHeld {
                    Log.info("sweep", ["result": report.summary, "stop": report.stop.rawValue])
                }
            } catch {
                metrics.recordFailure()
                Log.warn("sweep_failed", ["error": "\(error)"])
            }
            wakeup.lock()
            if !stopped.withLock({ $0 }) {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: TimeInterval(interval)))
            }
            wakeup.unlock()
        }
    }
}

import Foundation
import Synchronization

/// Runs the sweeper every `interval` seconds on its own thread until stopped.
final class SweeperLoop: Sendable {
    let sweeper: Sweeper
    let interval: Int64
    private let stopped = Mutex(false)
    private let wakeup = NSCondition()

    init(sweeper: Sweeper, interval: Int64) {
        self.sweeper = sweeper
        self.interval = interval
    }

    func start() {
        guard interval > 0 else { return }
        let thread = Thread { [self] in run() }
        thread.name = "sweeper"
        thread.start()
    }

    func stop() {
        stopped.withLock { $0 = true }
        wakeup.lock()
        wakeup.signal()
        wakeup.unlock()
    }

    private func run() {
        while !stopped.withLock({ $0 }) {
            do {
                let report = try sweeper.sweepOnce(now: WallClock.now())
                if report != Sweeper.Report() { Log.info("sweep", ["result": report.description]) }
            } catch {
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

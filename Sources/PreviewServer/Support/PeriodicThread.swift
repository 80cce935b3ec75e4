import Foundation
import Synchronization

/// A named thread that runs a pass every `interval` seconds until `stop()`, which wakes the
/// wait between passes and returns only once the thread has ended, so nothing the caller stops
/// next is pulled from under a pass. A pass that returns false ends the thread early; a long
/// pass may poll `isStopping` to end sooner. The sweeper loop, the sweep lease's heartbeat,
/// the metrics gauges' refresh, the store's readiness probe and the request log's flush run on
/// one each.
final class PeriodicThread: Sendable {
    private let name: String
    private let interval: Double
    /// Wait one interval before the first pass (a heartbeat) instead of running it at once.
    private let waitsFirst: Bool
    private let stopped = Mutex(false)
    private let running = Mutex(false)
    /// Signalled by `stop()` (wakes the wait between passes) and by the thread when it ends.
    private let wakeup = NSCondition()

    init(name: String, interval: Double, waitsFirst: Bool = false) {
        self.name = name
        self.interval = interval
        self.waitsFirst = waitsFirst
    }

    var isStopping: Bool { stopped.withLock { $0 } }

    func start(_ pass: @escaping @Sendable () -> Bool) {
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            var first = true
            while !isStopping {
                if !first || waitsFirst {
                    wakeup.lock()
                    if !isStopping { _ = wakeup.wait(until: Date(timeIntervalSinceNow: interval)) }
                    wakeup.unlock()
                    if isStopping { break }
                }
                first = false
                if !pass() { break }
            }
            wakeup.lock()
            running.withLock { $0 = false }
            wakeup.broadcast()
            wakeup.unlock()
        }
        thread.name = name
        thread.start()
    }

    /// Stops the passes and waits for the thread to end (at once when it was never started).
    func stop() {
        wakeup.lock()
        stopped.withLock { $0 = true }
        wakeup.broadcast()
        while running.withLock({ $0 }) { wakeup.wait() }
        wakeup.unlock()
    }

    /// Stops the passes without waiting: a pass in flight ends when it ends, and no other starts.
    /// For a pass that waits on something with its own timeout (a store probe), which nothing
    /// stopped afterwards depends on.
    func requestStop() {
        wakeup.lock()
        stopped.withLock { $0 = true }
        wakeup.broadcast()
        wakeup.unlock()
    }
}

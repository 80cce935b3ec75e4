import Foundation
import PreviewRedis
import Synchronization

/// Keeps a sweep lease alive from a thread of its own while a run works, so the lease can be
/// short (a killed sweeper blocks the others only until it runs out) whatever a batch costs.
/// Each renewal is compare-and-renew on the fencing token (`SweepScripts.renewLease`). The
/// lease counts as lost when a renewal finds another token, or when no renewal succeeded for a
/// whole lease (Redis unreachable or slow): from then on `isLost` is true and stays true.
final class SweepLeaseHeartbeat: Sendable {
    private let store: PreviewStore
    private let token: Int64
    private let leaseMilliseconds: Int64
    private let intervalMilliseconds: Int64
    private let lost = Atomic(false)
    private let stopped = Mutex(false)
    private let running = Mutex(false)
    /// Signalled by `stop()` (wakes the wait between renewals) and by the thread when it ends.
    private let wakeup = NSCondition()

    init(store: PreviewStore, token: Int64, leaseMilliseconds: Int64, intervalMilliseconds: Int64) {
        self.store = store
        self.token = token
        self.leaseMilliseconds = leaseMilliseconds
        self.intervalMilliseconds = max(1, intervalMilliseconds)
    }

    /// True once the lease is gone: the run must stop acting.
    var isLost: Bool { lost.load(ordering: .acquiring) }

    func start() {
        running.withLock { $0 = true }
        let thread = Thread { [self] in
            run()
            wakeup.lock()
            running.withLock { $0 = false }
            wakeup.broadcast()
            wakeup.unlock()
        }
        thread.name = "sweep-lease"
        thread.start()
    }

    /// Stops renewing and waits for the thread, so no renewal follows the lease's release.
    func stop() {
        wakeup.lock()
        stopped.withLock { $0 = true }
        wakeup.broadcast()
        while running.withLock({ $0 }) { wakeup.wait() }
        wakeup.unlock()
    }

    private func run() {
        // The lease was set when it was taken, just before this thread started.
        var confirmed = ContinuousClock.now
        while true {
            wakeup.lock()
            if !stopped.withLock({ $0 }) {
                _ = wakeup.wait(until: Date(timeIntervalSinceNow: Double(intervalMilliseconds) / 1000))
            }
            let stop = stopped.withLock { $0 }
            wakeup.unlock()
            if stop { return }
            let attempt = ContinuousClock.now
            do {
                guard try store.renewSweepLease(token: token, milliseconds: leaseMilliseconds) else {
                    markLost("another sweeper holds the lease")
                    return
                }
                confirmed = attempt
            } catch {
                // Retried at the next beat while the lease may still be ours.
                Log.warn("sweep_lease_renew_failed", ["error": "\(error)"])
            }
            if ContinuousClock.now - confirmed >= .milliseconds(leaseMilliseconds) {
                markLost("no renewal succeeded for a whole lease")
                return
            }
        }
    }

    private func markLost(_ reason: String) {
        lost.store(true, ordering: .releasing)
        Log.warn("sweep_lease_lost", ["token": String(token), "reason": reason])
    }
}

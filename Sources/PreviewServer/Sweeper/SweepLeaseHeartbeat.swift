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
    /// When a renewal last succeeded (or the lease was taken).
    private let confirmed = Mutex(ContinuousClock.now)
    private let thread: PeriodicThread

    init(store: PreviewStore, token: Int64, leaseMilliseconds: Int64, intervalMilliseconds: Int64) {
        self.store = store
        self.token = token
        self.leaseMilliseconds = leaseMilliseconds
        self.intervalMilliseconds = max(1, intervalMilliseconds)
        thread = PeriodicThread(
            name: "sweep-lease", interval: Double(self.intervalMilliseconds) / 1000, waitsFirst: true)
    }

    /// True once the lease is gone: the run must stop acting.
    var isLost: Bool { lost.load(ordering: .acquiring) }

    func start() {
        // The lease was set when it was taken, just before this thread started.
        confirmed.withLock { $0 = .now }
        thread.start { [self] in renew() }
    }

    /// Stops renewing and waits for the thread, so no renewal follows the lease's release.
    func stop() { thread.stop() }

    /// One beat; false once the lease is lost.
    private func renew() -> Bool {
        let attempt = ContinuousClock.now
        do {
            guard try store.renewSweepLease(token: token, milliseconds: leaseMilliseconds) else {
                markLost("another sweeper holds the lease")
                return false
            }
            confirmed.withLock { $0 = attempt }
        } catch {
            // Retried at the next beat while the lease may still be ours.
            Log.warn("sweep_lease_renew_failed", ["error": "\(error)"])
        }
        if ContinuousClock.now - confirmed.withLock({ $0 }) >= .milliseconds(leaseMilliseconds) {
            markLost("no renewal succeeded for a whole lease")
            return false
        }
        return true
    }

    private func markLost(_ reason: String) {
        lost.store(true, ordering: .releasing)
        Log.warn("sweep_lease_lost", ["token": String(token), "reason": reason])
    }
}

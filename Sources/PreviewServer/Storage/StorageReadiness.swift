import Foundation
import Synchronization

/// Whether the object store answers, for `/readyz`, checked on a thread of its own: `/readyz`
/// runs on the HTTP threads, which must never wait on a store, so it only reads the last result.
///
/// A probe is a ranged GET of a key that does not exist, which must come back as absent: a
/// missing bucket, refused credentials or an unreachable store throw. A probe still waiting
/// after `slowAfter` counts as a failure at once, so a stalled store turns readiness off without
/// waiting for the client's timeouts and retries.
package final class StorageReadiness: Sendable {
    static let probeKey = "previews/.readyz-probe"

    private struct State {
        /// Why the last finished probe failed; nil when it succeeded.
        var failure: String? = "not checked yet"
        /// When the probe now waiting on the store started.
        var probingSince: ContinuousClock.Instant?
    }

    private let storage: any ObjectStorage
    private let slowAfter: Duration
    private let state = Mutex(State())
    private let probes: PeriodicThread

    package init(storage: any ObjectStorage, interval: Duration = .seconds(5), slowAfter: Duration = .seconds(5)) {
        self.storage = storage
        self.slowAfter = slowAfter
        probes = PeriodicThread(name: "storage-readiness", interval: Self.seconds(interval))
    }

    /// nil when the store answered the last probe and is not keeping the current one waiting,
    /// else why not. Never waits.
    var failure: String? {
        state.withLock { state in
            if let since = state.probingSince, ContinuousClock.now - since >= slowAfter {
                return "no answer for \((ContinuousClock.now - since).components.seconds) s"
            }
            return state.failure
        }
    }

    /// Probes at once, then every `interval`, on a thread of its own until `stop()`. Until the
    /// first answer the store counts as not ready (a stalled store must not delay startup).
    package func start() {
        probes.start { [self] in
            probe()
            return true
        }
    }

    /// Stops the probes; one in flight is left to its client timeout, not waited for.
    package func stop() { probes.requestStop() }

    private func probe() {
        state.withLock { $0.probingSince = ContinuousClock.now }
        var failure: String?
        do { _ = try storage.read(key: Self.probeKey, offset: 0, length: 1) } catch { failure = "\(error)" }
        state.withLock {
            $0.failure = failure
            $0.probingSince = nil
        }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

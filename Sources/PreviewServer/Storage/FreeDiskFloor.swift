import Foundation
import Synchronization

/// The free space the disk under the local store must keep (`--min-free-disk-bytes`): below
/// it, upload URLs and object PUTs are refused (503 `insufficient_storage`) and `/readyz` says
/// why, so one full disk stops new uploads before it stops Redis's append-only file.
///
/// `statvfs` runs at most once per `refreshEvery`, on the thread of the request that finds the
/// figure stale (one syscall of a few microseconds, never one per request): every other request
/// reads the cached figure without waiting.
package final class FreeDiskFloor: Sendable {
    package let path: String
    let minimumFree: Int64
    private let refreshEvery: Duration
    private let state = Mutex(State())

    private struct State {
        /// Free bytes for an unprivileged writer at the last check; nil when it failed.
        var free: Int64?
        var failure: String? = "not checked yet"
        var checkedAt: ContinuousClock.Instant?
        var checking = false
    }

    package init(path: String, minimumFree: Int64, refreshEvery: Duration = .seconds(1)) {
        self.path = path
        self.minimumFree = minimumFree
        self.refreshEvery = refreshEvery
        refreshIfStale()  // so the first requests have a figure
    }

    /// Why an upload of `adding` more bytes must be refused now, or nil when the disk keeps
    /// `minimumFree` bytes free after it. A failed check refuses: the disk is then unknown.
    func shortfall(adding: Int64 = 0) -> String? {
        refreshIfStale()
        return state.withLock { state in
            guard let free = state.free else { return "cannot tell the free space: \(state.failure ?? "")" }
            guard free - max(0, adding) < minimumFree else { return nil }
            return "\(free) bytes free under the local store, below --min-free-disk-bytes \(minimumFree)"
        }
    }

    private func refreshIfStale() {
        let now = ContinuousClock.now
        let due = state.withLock { state -> Bool in
            guard !state.checking else { return false }
            if let checkedAt = state.checkedAt, now - checkedAt < refreshEvery { return false }
            state.checking = true
            return true
        }
        guard due else { return }
        var info = statvfs()
        let result = statvfs(path, &info)
        let failure = result == 0 ? nil : "statvfs \(path): \(String(cString: strerror(errno)))"
        let free = result == 0 ? Int64(clamping: UInt64(info.f_bavail) &* UInt64(info.f_frsize)) : nil
        state.withLock { state in
            state.free = free
            state.failure = failure
            state.checkedAt = now
            state.checking = false
        }
    }
}

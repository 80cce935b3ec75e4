import PreviewServer

/// When `capture` starts its next cycle: one interval after the last one started (`--every`,
/// else the server's `refreshAfter`, else a minute); after a failure of the passing kind (the
/// source, the network, a busy server) sooner, with backoff: 1 s, 2 s, 4 s ... up to the
/// interval. A clip the server refused waits for the interval like a success: a new clip is
/// cut then, and the refused one is never sent again.
struct CaptureSchedule: Sendable, Equatable {
    /// How a cycle ended.
    enum Result: Sendable, Equatable {
        case published
        /// The server refused the clip (a 4xx that repeating cannot change).
        case refused
        /// The source or the way to the server failed; worth trying again soon.
        case failed
    }

    /// `--every` in seconds, if given.
    let every: Int64?
    /// The last `refreshAfter` the server sent (seconds; 0 and older servers send none).
    private(set) var serverRefresh: Int64?
    /// Failures in a row.
    private(set) var failures = 0

    init(every: Int64?) {
        self.every = every
    }

    /// Seconds from one cycle's start to the next.
    var interval: Int64 { every ?? serverRefresh ?? CaptureOptions.fallbackInterval }

    /// Takes the server's `refreshAfter` (seconds) from an upload answer.
    mutating func heard(refreshAfter: Int64) {
        if refreshAfter > 0 { serverRefresh = refreshAfter }
    }

    /// Seconds to wait after a cycle that ended with `result` after `elapsed` seconds.
    mutating func delay(after result: Result, elapsed: Double) -> Double {
        switch result {
        case .published, .refused:
            failures = 0
            return max(0, Double(interval) - elapsed)
        case .failed:
            failures += 1
            let backoff = Double(1 << min(failures - 1, 20))
            return min(backoff, Double(interval))
        }
    }
}

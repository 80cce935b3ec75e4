import PreviewCore
import Synchronization

/// What the commit hook answered, how long it took, how long commits waited for a turn to ask
/// it, and the commits published without its answer (`--commit-hook-fail-open`).
package final class CommitHookMetrics: Sendable {
    private let outcomes = CommitHook.Outcome.allCases.map { _ in MetricCounter() }
    private let duration = LatencyHistogram()
    private let waits = LatencyHistogram()
    private let failedOpen = MetricCounter()
    /// Calls in flight and commits waiting now; set once the hook exists.
    private let turns = Mutex<(@Sendable () -> (calling: Int, waiting: Int))?>(nil)

    /// Counts one commit's review; `nanoseconds` is nil when the hook was not called (busy,
    /// remembered).
    func record(_ outcome: CommitHook.Outcome, nanoseconds: Int64?) {
        outcomes[Self.slot(outcome)].add()
        if let nanoseconds { duration.observe(nanoseconds: nanoseconds) }
    }

    /// Counts the wait of a commit that found no turn free, whether it got one or gave up.
    func recordWait(nanoseconds: Int64) { waits.observe(nanoseconds: nanoseconds) }

    func recordFailedOpen() { failedOpen.add() }

    /// Where the calling and waiting gauges are read from.
    func readTurns(_ read: @escaping @Sendable () -> (calling: Int, waiting: Int)) {
        turns.withLock { $0 = read }
    }

    func count(_ outcome: CommitHook.Outcome) -> UInt64 { outcomes[Self.slot(outcome)].value }

    private static func slot(_ outcome: CommitHook.Outcome) -> Int {
        CommitHook.Outcome.allCases.firstIndex(of: outcome) ?? 0
    }

    func render(into text: inout PrometheusText) {
        let calls = "streampreview_commit_hook_calls_total"
        text.family(
            calls, .counter,
            help: "Commits the moderation hook was asked about, by outcome: allowed, refused, error (an answer "
                + "that is not a verdict, or no connection), timeout; and those it was not asked about: busy (no "
                + "turn to call it; never published), remembered (it refused the upload before).")
        for (slot, outcome) in CommitHook.Outcome.allCases.enumerated() {
            text.sample(calls, labels: [("outcome", outcome.rawValue)], outcomes[slot].value)
        }
        let seconds = "streampreview_commit_hook_duration_seconds"
        text.family(seconds, .histogram, help: "Time from calling the moderation hook to its answer or failure.")
        text.histogram(seconds, duration)
        let waited = "streampreview_commit_hook_wait_seconds"
        text.family(
            waited, .histogram,
            help: "Time commits that found no turn free waited to call the moderation hook, until they got one "
                + "or gave up (busy).")
        text.histogram(waited, waits)
        if let (calling, waiting) = turns.withLock({ $0 })?() {
            let inFlight = "streampreview_commit_hook_calls_in_flight"
            text.family(inFlight, .gauge, help: "Calls to the moderation hook in flight now.")
            text.sample(inFlight, Int64(calling))
            let queued = "streampreview_commit_hook_waiting_commits"
            text.family(queued, .gauge, help: "Commits waiting now for a turn to call the moderation hook.")
            text.sample(queued, Int64(waiting))
        }
        let open = "streampreview_commit_hook_failed_open_total"
        text.family(
            open, .counter,
            help: "Commits published without the hook's verdict because it was down (--commit-hook-fail-open).")
        text.sample(open, failedOpen.value)
    }
}

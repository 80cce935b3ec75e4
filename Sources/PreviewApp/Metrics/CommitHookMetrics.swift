import PreviewCore

/// What the commit hook answered, how long it took, and the commits published without its
/// answer (`--commit-hook-fail-open`).
final class CommitHookMetrics: Sendable {
    private let outcomes = CommitHook.Outcome.allCases.map { _ in MetricCounter() }
    private let duration = LatencyHistogram()
    private let failedOpen = MetricCounter()

    /// Counts one commit's review; `nanoseconds` is nil when the hook was not called (busy,
    /// remembered).
    func record(_ outcome: CommitHook.Outcome, nanoseconds: Int64?) {
        outcomes[Self.slot(outcome)].add()
        if let nanoseconds { duration.observe(nanoseconds: nanoseconds) }
    }

    func recordFailedOpen() { failedOpen.add() }

    func count(_ outcome: CommitHook.Outcome) -> UInt64 { outcomes[Self.slot(outcome)].value }

    private static func slot(_ outcome: CommitHook.Outcome) -> Int {
        CommitHook.Outcome.allCases.firstIndex(of: outcome) ?? 0
    }

    func render(into text: inout PrometheusText) {
        let calls = "streampreview_commit_hook_calls_total"
        text.family(
            calls, .counter,
            help: "Commits the moderation hook was asked about, by outcome: allowed, refused, error (an answer "
                + "that is not a verdict, or no connection), timeout; and those it was not asked about: busy (too "
                + "many calls in flight), remembered (it refused the upload before).")
        for (slot, outcome) in CommitHook.Outcome.allCases.enumerated() {
            text.sample(calls, labels: [("outcome", outcome.rawValue)], outcomes[slot].value)
        }
        let seconds = "streampreview_commit_hook_duration_seconds"
        text.family(seconds, .histogram, help: "Time from calling the moderation hook to its answer or failure.")
        text.histogram(seconds, duration)
        let open = "streampreview_commit_hook_failed_open_total"
        text.family(
            open, .counter,
            help: "Commits published without the hook's verdict because it failed (--commit-hook-fail-open).")
        text.sample(open, failedOpen.value)
    }
}

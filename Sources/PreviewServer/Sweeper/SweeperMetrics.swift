import PreviewCore

/// What the in-process sweeper did, recorded from each run's `Sweeper.Report`.
package final class SweeperMetrics: Sendable {
    /// `stop` label values: the report's reasons, then `error` (the run threw).
    static let outcomes = ["drained", "lease_held", "lease_lost", "time_up", "store_unreachable", "stopped", "error"]
    private let runs = SweeperMetrics.outcomes.map { _ in MetricCounter() }
    let previewsRemoved = MetricCounter()
    let objectsDeleted = MetricCounter()
    let deleteFailures = MetricCounter()
    /// 1 when this process's last run held the sweep lease, 0 when another process held it.
    let leaseHeld = MetricGauge()

    func record(_ report: Sweeper.Report) {
        run(report.stop.rawValue)
        previewsRemoved.add(UInt64(max(0, report.previewsRemoved)))
        objectsDeleted.add(UInt64(max(0, report.objectsDeleted)))
        deleteFailures.add(UInt64(max(0, report.failures)))
        leaseHeld.set(report.stop == .leaseHeld ? 0 : 1)
    }

    /// A run that failed with an error (Redis unreachable).
    func recordFailure() {
        run("error")
    }

    package func run(_ outcome: String) {
        runs[Self.outcomes.firstIndex(of: outcome) ?? Self.outcomes.count - 1].add()
    }

    func render(into text: inout PrometheusText) {
        text.family(
            "streampreview_sweeper_runs_total", .counter, help: "Sweeper runs in this process, by why they stopped.")
        for (slot, outcome) in Self.outcomes.enumerated() {
            text.sample("streampreview_sweeper_runs_total", labels: [("stop", outcome)], runs[slot].value)
        }
        let counters: [(String, String, MetricCounter)] = [
            ("streampreview_sweeper_previews_removed_total", "Expired previews the sweeper removed.", previewsRemoved),
            (
                "streampreview_sweeper_objects_deleted_total", "Objects the sweeper deleted from the store.",
                objectsDeleted
            ),
            (
                "streampreview_sweeper_delete_failures_total", "Object deletes that failed (retried with backoff).",
                deleteFailures
            ),
        ]
        for (name, help, counter) in counters {
            text.family(name, .counter, help: help)
            text.sample(name, counter.value)
        }
        text.family(
            "streampreview_sweeper_lease_held", .gauge,
            help: "1 when this process's last sweeper run held the lease, 0 when another process held it.")
        text.sample("streampreview_sweeper_lease_held", leaseHeld.value)
    }
}

import PreviewCore

/// The viewer actions this process counted in preview versions' figures, by kind: totals over
/// every stream (per-stream figures are the stats route's, never labels here). Likes are not
/// among them: the like route's request counts already say how many came.
final class FigureMetrics: Sendable {
    private let counted = FigureKind.allCases.map { _ in MetricCounter() }
    /// Tracking link follows by link previewers and crawlers, sent the page and not counted.
    private let previewers = MetricCounter()

    /// A play counts as an impression too, as in the figures.
    func record(_ kind: FigureKind) {
        counted[Self.slot(kind)].add()
        if kind == .play { counted[Self.slot(.impression)].add() }
    }

    func recordPreviewer() { previewers.add() }

    func count(_ kind: FigureKind) -> UInt64 { counted[Self.slot(kind)].value }

    private static func slot(_ kind: FigureKind) -> Int { FigureKind.allCases.firstIndex(of: kind) ?? 0 }

    func render(into text: inout PrometheusText) {
        let name = "streampreview_figures_counted_total"
        text.family(
            name, .counter,
            help: "Viewer actions counted in preview versions' figures, by kind: impressions (seen marks and plays), "
                + "plays, opens (tracking link follows by viewers), shares.")
        for (slot, kind) in FigureKind.allCases.enumerated() where kind != .like {
            text.sample(name, labels: [("kind", kind.rawValue)], counted[slot].value)
        }
        let skipped = "streampreview_tracking_link_previewers_total"
        text.family(
            skipped, .counter, help: "Tracking link follows by link previewers and crawlers, not counted as opens.")
        text.sample(skipped, previewers.value)
    }
}

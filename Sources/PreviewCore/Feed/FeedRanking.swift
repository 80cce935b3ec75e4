/// What orders the seen part of the play order (`--rank-by`). Unseen previews always come
/// first, newest first: the rule the product is built on. Seen previews follow by likes
/// (the default), or by open rate: how often the preview's viewers followed its tracking link.
public enum FeedRanking: String, Sendable, CaseIterable {
    case likes
    case opens

    /// The open rate with a prior: `(opens + priorOpens) / (distinct impressions + priorWeight)`,
    /// the Bayesian average that starts every version at `priorRate` as if it had been shown
    /// `priorWeight` times. A version shown once and opened once scores 3.5/51 ≈ 0.069, below one
    /// shown 200 times and opened 20 times (22.5/250 = 0.09), so a lucky first view does not jump
    /// the queue; a version shown to hundreds is ranked by its own rate.
    public static func openScore(opens: Int64, distinctImpressions: Int64) -> Double {
        let shown = max(distinctImpressions, opens, 0)
        return (Double(max(opens, 0)) + priorRate * priorWeight) / (Double(shown) + priorWeight)
    }

    /// The open rate a version starts with: about one viewer in twenty.
    public static let priorRate = 0.05
    /// How many impressions the prior weighs as.
    public static let priorWeight = 50.0
}

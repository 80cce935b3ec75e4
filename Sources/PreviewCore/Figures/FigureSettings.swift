/// Whether and for how long preview versions' figures are kept (`--no-stats`, `--stats-retention`,
/// `--stats-versions`), and whether they rank the feed (`--rank-by`). Every process that
/// changes previews (each serve replica, the sweep job) should agree on the retention:
/// whichever closes a version sets how long its figures stay.
public struct FigureSettings: Sendable, Equatable {
    /// Off: no version starts counting, the stats route answers 404, nothing is written.
    public var enabled: Bool
    /// Seconds a version's figures stay after it stops being live.
    public var retentionSeconds: Int64
    /// The most versions of one stream whose figures are kept (the oldest go first).
    public var versionsKept: Int
    /// What orders seen previews; `.opens` needs the figures on (`--rank-by`).
    public var ranking: FeedRanking

    public static let defaultRetentionSeconds: Int64 = 7 * 86_400
    public static let defaultVersionsKept = 100

    public init(
        enabled: Bool = true, retentionSeconds: Int64 = Self.defaultRetentionSeconds,
        versionsKept: Int = Self.defaultVersionsKept, ranking: FeedRanking = .likes
    ) {
        self.enabled = enabled
        self.retentionSeconds = max(60, retentionSeconds)
        self.versionsKept = max(1, versionsKept)
        self.ranking = enabled ? ranking : .likes
    }

    /// The publish script's "versions kept" argument: 0 when off, so no version starts counting.
    public var keptArgument: String { enabled ? String(versionsKept) : "0" }
}

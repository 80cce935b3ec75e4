/// What one viewer has seen (stream ID → the preview version seen) and liked, as Redis holds
/// it: everything the viewer's part of a feed depends on, so a process can keep it and answer
/// the viewer's feeds without asking Redis each time.
public struct ViewerHistory: Sendable, Equatable {
    public var seen: [Int64: Int64]
    public var liked: Set<Int64>

    public init(seen: [Int64: Int64] = [:], liked: Set<Int64> = []) {
        self.seen = seen
        self.liked = liked
    }

    /// Entries held, the measure of a cache's budget (an empty history still costs one).
    public var size: Int { 1 + seen.count + liked.count }
}

/// GET URLs are signed on a fixed grid: every URL minted within one window shares its
/// signing time, so all viewers get identical URLs (CDN and player caches hit, and the
/// signature is computed once per window), and each URL still has at least
/// `lifetime - window` seconds left when handed out.
public struct ExpiryGrid: Sendable, Equatable {
    /// How long a minted URL is valid, from its grid-aligned signing time.
    public var lifetime: Int64
    /// How often a new signing time starts.
    public var window: Int64

    public init(lifetime: Int64 = 3600, window: Int64 = 1800) {
        precondition(window > 0 && lifetime > window, "the grid window must be shorter than the URL lifetime")
        self.lifetime = lifetime
        self.window = window
    }

    /// The signing time shared by every URL minted at `now`.
    public func signingTime(at now: Int64) -> Int64 {
        now - ((now % window) + window) % window
    }

    /// When URLs minted at `now` stop working.
    public func expiry(at now: Int64) -> Int64 { signingTime(at: now) + lifetime }
}

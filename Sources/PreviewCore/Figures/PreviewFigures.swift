/// What a viewer did with a preview version, as counted for its streamer: each kind is a total
/// (every counted action), and impressions and opens also a distinct-viewer estimate.
public enum FigureKind: String, Sendable, CaseIterable {
    /// A viewer's feed showed the preview: the seen mark sent when a clip played to its end, or a
    /// play started.
    case impression = "impressions"
    /// A play started (`POST /api/streams/{streamId}/play`); also an impression.
    case play = "plays"
    /// A like that changed the viewer's state (a repeated like counts once).
    case like = "likes"
    /// A follow of the tracking link `/s/{streamId}` by a viewer, not a link previewer.
    case open = "opens"
    /// A copy or share of the tracking link the client reported (`POST .../share`).
    case share = "shares"

    /// The field of the version's figures hash that counts this kind.
    public var field: String { rawValue }

    /// The suffix of the HyperLogLog that estimates the distinct viewers of this kind, for the
    /// kinds that have one. A play is an impression too, so it adds to that estimate.
    public var distinctSuffix: String? {
        switch self {
        case .impression, .play: return "impressions"
        case .open: return "opens"
        case .like, .share: return nil
        }
    }
}

/// The figures of one preview version of a stream (`GET /api/streams/{streamId}/stats`, and the
/// final figures a webhook carries when the version is replaced or removed).
public struct PreviewFigures: Sendable, Equatable {
    public var previewVersion: Int64
    /// Unix seconds the version went live.
    public var liveFrom: Int64
    /// Unix seconds it stopped being live; nil while it is live.
    public var liveUntil: Int64?
    public var impressions: Int64
    public var plays: Int64
    public var likes: Int64
    public var opens: Int64
    public var shares: Int64
    /// Estimates (Redis HyperLogLog: a standard error of 0.81%) of the distinct viewers
    /// counted in `impressions` and in `opens`.
    public var distinctImpressions: Int64
    public var distinctOpens: Int64

    public init(
        previewVersion: Int64, liveFrom: Int64, liveUntil: Int64? = nil, impressions: Int64 = 0, plays: Int64 = 0,
        likes: Int64 = 0, opens: Int64 = 0, shares: Int64 = 0, distinctImpressions: Int64 = 0, distinctOpens: Int64 = 0
    ) {
        self.previewVersion = previewVersion
        self.liveFrom = liveFrom
        self.liveUntil = liveUntil
        self.impressions = impressions
        self.plays = plays
        self.likes = likes
        self.opens = opens
        self.shares = shares
        self.distinctImpressions = distinctImpressions
        self.distinctOpens = distinctOpens
    }

    /// Opens per distinct viewer shown the version (0 before anyone was shown it). Opens can
    /// outnumber the viewers shown it (a viewer who opens twice, a link followed from a chat by
    /// someone whose feed never showed it), so the rate can pass 1.
    public var openRate: Double {
        distinctImpressions > 0 ? Double(opens) / Double(distinctImpressions) : 0
    }

    /// The names of the stored fields (the Lua scripts write the same names): the counts by
    /// `FigureKind.field`, then these.
    public enum Field {
        public static let liveFrom = "liveFrom"
        public static let liveUntil = "liveUntil"
        public static let distinctImpressions = "distinctImpressions"
        public static let distinctOpens = "distinctOpens"
    }

    /// Reads the fields of a version's figures hash plus its two estimates (named as in
    /// `Field`); nil without `liveFrom` (no such version, or one counted by nobody).
    public init?(previewVersion: Int64, fields: [String: String]) {
        func number(_ name: String) -> Int64 { fields[name].flatMap { Int64($0) } ?? 0 }
        guard let liveFrom = fields[Field.liveFrom].flatMap({ Int64($0) }) else { return nil }
        self.init(
            previewVersion: previewVersion, liveFrom: liveFrom,
            liveUntil: fields[Field.liveUntil].flatMap { Int64($0) },
            impressions: number(FigureKind.impression.field), plays: number(FigureKind.play.field),
            likes: number(FigureKind.like.field), opens: number(FigureKind.open.field),
            shares: number(FigureKind.share.field), distinctImpressions: number(Field.distinctImpressions),
            distinctOpens: number(Field.distinctOpens))
    }

    /// Every field, counts included, in a fixed order (`liveUntil` left out while live).
    public var fields: [(String, String)] {
        var out = [(Field.liveFrom, String(liveFrom))]
        if let liveUntil { out.append((Field.liveUntil, String(liveUntil))) }
        out += [
            (FigureKind.impression.field, String(impressions)), (FigureKind.play.field, String(plays)),
            (FigureKind.like.field, String(likes)), (FigureKind.open.field, String(opens)),
            (FigureKind.share.field, String(shares)), (Field.distinctImpressions, String(distinctImpressions)),
            (Field.distinctOpens, String(distinctOpens)),
        ]
        return out
    }
}

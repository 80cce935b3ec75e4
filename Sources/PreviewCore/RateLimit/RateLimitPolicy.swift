/// The groups of routes a caller's requests are counted in, each with its own budget.
public enum RateLimitClass: String, Sendable, CaseIterable, Hashable {
    /// `POST /api/preview/post`: upload URLs.
    case upload
    /// `POST /api/preview/commit`.
    case commit
    /// Likes, unlikes, seen marks, play and share reports, watch URLs and ends of stream
    /// (`DELETE /api/preview/{id}`).
    case write
    /// `GET /api/feed`.
    case feed

    /// The class a route is counted in (`RouteTraits.limitClass`); nil for routes not limited.
    public init?(_ route: Route) {
        guard let limitClass = route.traits.limitClass else { return nil }
        self = limitClass
    }

    /// The class's place in `allCases`, for tables that must not hash on every request.
    public var index: Int {
        switch self {
        case .upload: return 0
        case .commit: return 1
        case .write: return 2
        case .feed: return 3
        }
    }
}

/// `COUNT` requests per `PERIOD` seconds, as GCRA spreads them: a caller may spend the whole
/// count at once, then gets one more every `period / count`.
public struct RateLimitPolicy: Sendable, Equatable {
    public var count: Int64
    public var periodSeconds: Int64

    public init(count: Int64, periodSeconds: Int64) {
        self.count = count
        self.periodSeconds = periodSeconds
    }

    /// The largest count and period accepted: the arithmetic (in microseconds, in Lua's
    /// doubles) stays exact far below 2^53.
    public static let maxCount: Int64 = 1_000_000
    public static let maxPeriodSeconds: Int64 = 86_400
}

/// The policy of every class; a class without one is not limited (`CLASS=off`).
public struct RateLimits: Sendable, Equatable {
    public var policies: [RateLimitClass: RateLimitPolicy]

    /// Far above what the app makes (it reads the feed every few seconds and writes one like
    /// or seen mark per preview watched, uploads and commits one preview per 5-30 s clip), so
    /// a normal client never meets them; they stop a script, not a viewer.
    public static let defaults = RateLimits(policies: [
        .feed: RateLimitPolicy(count: 1200, periodSeconds: 60),
        .write: RateLimitPolicy(count: 600, periodSeconds: 60),
        .upload: RateLimitPolicy(count: 120, periodSeconds: 60),
        .commit: RateLimitPolicy(count: 120, periodSeconds: 60),
    ])

    public init(policies: [RateLimitClass: RateLimitPolicy]) {
        self.policies = policies
    }

    public subscript(_ limitClass: RateLimitClass) -> RateLimitPolicy? { policies[limitClass] }

    /// The defaults with each `CLASS=COUNT/PERIOD` or `CLASS=off` applied in order (a later
    /// one for the same class wins). PERIOD is a whole number of `s`, `m` or `h` (`1m`, `30s`;
    /// the number may be left out: `m` is `1m`).
    public static func parse(_ items: [String], base: RateLimits = .defaults) -> Result<RateLimits, RateLimitParseError>
    {
        var limits = base
        for item in items {
            let text = item.trimmingSpacesAndTabs()
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let limitClass = RateLimitClass(rawValue: String(parts[0])) else {
                return .failure(
                    RateLimitParseError(
                        item: item,
                        reason:
                            "must be CLASS=COUNT/PERIOD or CLASS=off, CLASS one of \(RateLimitClass.allCases.map(\.rawValue).joined(separator: ", "))"
                    ))
            }
            if parts[1] == "off" {
                limits.policies[limitClass] = nil
                continue
            }
            switch policy(parts[1], item: item) {
            case .success(let policy): limits.policies[limitClass] = policy
            case .failure(let error): return .failure(error)
            }
        }
        return .success(limits)
    }

    private static func policy(_ text: Substring, item: String) -> Result<RateLimitPolicy, RateLimitParseError> {
        func failure(_ reason: String) -> Result<RateLimitPolicy, RateLimitParseError> {
            .failure(RateLimitParseError(item: item, reason: reason))
        }
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].utf8.allSatisfy({ (48...57).contains($0) }),
            let count = Int64(parts[0]), (1...RateLimitPolicy.maxCount).contains(count)
        else { return failure("COUNT must be a whole number from 1 to \(RateLimitPolicy.maxCount)") }
        var period = parts[1]
        let unit: Int64
        switch period.last {
        case "s": unit = 1
        case "m": unit = 60
        case "h": unit = 3600
        default: return failure("PERIOD must end in s, m or h (30s, 1m, 1h)")
        }
        period.removeLast()
        guard period.utf8.allSatisfy({ (48...57).contains($0) }), period.count <= 6 else {
            return failure("PERIOD must be a whole number of s, m or h")
        }
        let seconds = (period.isEmpty ? 1 : Int64(period) ?? 0) * unit
        guard (1...RateLimitPolicy.maxPeriodSeconds).contains(seconds) else {
            return failure("PERIOD must be from 1s to 24h")
        }
        return .success(RateLimitPolicy(count: count, periodSeconds: seconds))
    }

    /// `write=600/1m` per class in a fixed order, `off` for classes without a policy.
    public var description: String {
        RateLimitClass.allCases.map { limitClass in
            guard let policy = policies[limitClass] else { return "\(limitClass.rawValue)=off" }
            return "\(limitClass.rawValue)=\(policy.count)/\(policy.periodSeconds)s"
        }.joined(separator: ",")
    }
}

public struct RateLimitParseError: Error, Sendable, Equatable {
    public var item: String
    public var reason: String
}

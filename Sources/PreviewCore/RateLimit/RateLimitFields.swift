/// The `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers-10
/// (Structured Field lists, RFC 9651): the policy named after the class, its quota `q` and
/// window `w` in seconds; the remaining quota `r` and the seconds `t` until it is whole again.
public enum RateLimitFields {
    public static let policyName = "RateLimit-Policy"
    public static let limitName = "RateLimit"

    /// `"write";q=600;w=60`
    public static func policy(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy) -> String {
        "\"\(limitClass.rawValue)\";q=\(policy.count);w=\(policy.periodSeconds)"
    }

    /// `"write";r=57;t=12`, built in one allocation: it is rendered for every answer of a
    /// limited class.
    public static func limit(_ limitClass: RateLimitClass, _ decision: RateLimitDecision) -> String {
        var field = String()
        field.reserveCapacity(40)
        field += "\""
        field += limitClass.rawValue
        field += "\";r="
        field += String(decision.remaining)
        field += ";t="
        field += String(decision.resetSeconds)
        return field
    }

    /// Both fields of one answer, as `RateLimiting.admit` found them.
    public struct Answer: Sendable, Equatable {
        public let policy: String
        public let limit: String

        public init(policy: String, limit: String) {
            self.policy = policy
            self.limit = limit
        }

        public func add(to headers: inout HTTPHeaders) {
            headers.add(RateLimitFields.policyName, policy)
            headers.add(RateLimitFields.limitName, limit)
        }

        public var headers: HTTPHeaders {
            var headers = HTTPHeaders()
            add(to: &headers)
            return headers
        }
    }
}

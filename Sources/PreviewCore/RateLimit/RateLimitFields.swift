/// The `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers-10
/// (Structured Field lists, RFC 9651): the policy named after the class, its quota `q` and
/// window `w` in seconds; the remaining quota `r` and the seconds `t` until it is whole again.
public enum RateLimitFields {
    public static let policyName = "RateLimit-Policy"
    public static let limitName = "RateLimit"

    /// `"write";q=600;w=60`
    public static func policy(_ limitClass: RateLimitClass, _ policy: RateLimitPolicy) -> String {
        item(limitClass, "q", policy.count, "w", policy.periodSeconds)
    }

    /// `"write";r=57;t=12`
    public static func limit(_ limitClass: RateLimitClass, _ decision: RateLimitDecision) -> String {
        item(limitClass, "r", decision.remaining, "t", decision.resetSeconds)
    }

    /// `"<class>";<first>=<x>;<second>=<y>`, written straight into the string's one allocation:
    /// both fields are rendered for every answer of a limited class, and `String(Int)` plus
    /// appends cost several. Each answer gets strings of its own, even for the policy, which
    /// never changes: one string shared by every I/O thread would have its reference count
    /// bounced between cores several times per answer.
    private static func item(
        _ limitClass: RateLimitClass, _ first: Unicode.Scalar, _ x: Int64, _ second: Unicode.Scalar, _ y: Int64
    ) -> String {
        let name = limitClass.rawValue.utf8
        // Quotes, name, two `;k=`, and two Int64s of up to 20 characters each.
        let capacity = name.count + 8 + 40
        return String(unsafeUninitializedCapacity: capacity) { buffer in
            var at = 0
            func put(_ byte: UInt8) {
                buffer[at] = byte
                at += 1
            }
            func put(_ key: Unicode.Scalar, _ number: Int64) {
                put(UInt8(ascii: ";"))
                put(UInt8(ascii: key))
                put(UInt8(ascii: "="))
                if number < 0 { put(UInt8(ascii: "-")) }
                var magnitude = number.magnitude
                let start = at
                repeat {
                    put(UInt8(ascii: "0") + UInt8(magnitude % 10))
                    magnitude /= 10
                } while magnitude > 0
                buffer[start..<at].reverse()
            }
            put(UInt8(ascii: "\""))
            for byte in name { put(byte) }
            put(UInt8(ascii: "\""))
            put(first, x)
            put(second, y)
            return at
        }
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

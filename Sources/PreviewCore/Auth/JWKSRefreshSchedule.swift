/// When `--jwks-url` is fetched again: as the last good answer's `Cache-Control: max-age`
/// says (RFC 9111 §5.2.2.1), clamped to `minimumMaxAge...maximumMaxAge`; sooner after a
/// failure; and at once for a token naming an unknown `kid` once the last fetch is
/// `unknownKeyIDFloor` old. The floor holds for every caller alike: tokens with made-up kids
/// cannot make this service fetch more often than once per floor, and cannot hold back a real
/// new key longer than that either. Times are Unix seconds, given by the caller.
public struct JWKSRefreshSchedule: Sendable, Equatable {
    public static let minimumMaxAge: Int64 = 300
    public static let maximumMaxAge: Int64 = 86400
    /// Without a usable max-age.
    public static let defaultMaxAge: Int64 = 3600
    /// The wait after a failed fetch: long enough not to pile onto a provider in trouble.
    public static let retryAfterFailure: Int64 = 30
    /// How old the last fetch must be before an unknown kid fetches again: a provider's new key
    /// is accepted within about this long of its first token, while made-up kids cost the
    /// provider at most six requests a minute from each replica.
    public static let unknownKeyIDFloor: Int64 = 10

    /// When the next fetch is due; the first is due at once.
    public private(set) var nextFetch: Int64 = .min
    /// When the last fetch ended, whether it gave keys or failed.
    public private(set) var lastFetch: Int64?

    public init() {}

    public func isDue(now: Int64) -> Bool { now >= nextFetch }

    /// A fetch that gave a key set, with the response's `Cache-Control` value (nil when absent).
    public mutating func succeeded(now: Int64, cacheControl: String?) {
        nextFetch = now + Self.lifetime(cacheControl: cacheControl)
        lastFetch = now
    }

    /// A fetch asked for now (SIGHUP).
    public mutating func fetchNow(now: Int64) {
        nextFetch = min(nextFetch, now)
    }

    public mutating func failed(now: Int64) {
        nextFetch = now + Self.retryAfterFailure
        lastFetch = now
    }

    /// A token named a kid the set does not hold: true when that makes a fetch due now; false
    /// when one is due already (that fetch serves this token too) or the last fetch is younger
    /// than `unknownKeyIDFloor`. A clock that went back counts as the floor passed.
    public mutating func unknownKeyID(now: Int64) -> Bool {
        if isDue(now: now) { return false }
        if let last = lastFetch, now >= last, now - last < Self.unknownKeyIDFloor { return false }
        nextFetch = now
        return true
    }

    /// How long a fetched key set is kept: `max-age` clamped; `no-store`, `no-cache` or a
    /// max-age of 0 give the minimum, no usable directive the default.
    public static func lifetime(cacheControl: String?) -> Int64 {
        guard let cacheControl, let maxAge = maxAge(cacheControl) else { return defaultMaxAge }
        return min(max(maxAge, minimumMaxAge), maximumMaxAge)
    }

    /// The `max-age` of a Cache-Control value (directive names in any case, the value a plain
    /// or quoted decimal), 0 for `no-store` / `no-cache`; nil when there is none.
    static func maxAge(_ value: String) -> Int64? {
        var found: Int64?
        for directive in value.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = parts[0].trimmingSpacesAndTabs().lowercased()
            switch name {
            case "no-store", "no-cache": return 0
            case "max-age":
                guard parts.count == 2 else { continue }
                var text = Substring(parts[1].trimmingSpacesAndTabs())
                if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = text.dropFirst().dropLast() }
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
                else { continue }
                // RFC 9111 §1.2.2: a delta too large to represent is read as the largest one.
                found = Int64(text) ?? Int64.max
            default: continue
            }
        }
        return found
    }
}

import Synchronization

/// The request ID a request is logged and answered under (`X-Request-Id`).
public enum RequestID {
    /// The longest client-sent ID kept.
    public static let maxLength = 64

    /// The client's `X-Request-Id` when it is well-formed: 1 to 64 characters of
    /// `[A-Za-z0-9._-]`, so it is safe in a log line and a header as is; nil otherwise, and
    /// the server makes a fresh one.
    public static func wellFormed(_ value: String?) -> String? {
        guard let value, !value.isEmpty, value.utf8.count <= maxLength else { return nil }
        let allowed = value.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
        return allowed ? value : nil
    }
}

/// Fresh request IDs, 16 lower-case hex digits, without a system call per request: a counter
/// from a random start, passed through an invertible mix (SplitMix64's finaliser), so no two
/// IDs of one process are equal and those of different processes almost never are. They are
/// names for log lines, not secrets.
public final class RequestIDSource: Sendable {
    private let counter: Atomic<UInt64>

    public init(start: UInt64) {
        counter = Atomic(start)
    }

    public func next() -> String {
        var value = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        return String(unsafeUninitializedCapacity: 16) { out in
            for index in 0..<16 {
                out[index] = Hex.digit(
                    UInt8(truncatingIfNeeded: value >> UInt64(60 - 4 * index)) & 0x0F, uppercase: false)
            }
            return 16
        }
    }
}

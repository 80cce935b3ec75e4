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

/// The `StreamPreview-Signature` header of a webhook delivery or a commit-hook call:
/// `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, the scheme payment providers use, so
/// a receiver checks the body and refuses an old timestamp (a replay) with one shared secret.
/// Several `v1=` values may appear while a secret is rotated; any one that matches is enough.
public struct WebhookSignature: Sendable, Equatable {
    public static let headerName = "StreamPreview-Signature"

    public let timestamp: Int64
    public let signatures: [String]

    public init(timestamp: Int64, signatures: [String]) {
        self.timestamp = timestamp
        self.signatures = signatures
    }

    /// Signs `body` at `timestamp` with every key (the first is the current secret).
    public static func sign(
        body: [UInt8], timestamp: Int64, keys: [any HMACKey]
    ) -> WebhookSignature {
        let message = signedPayload(body: body, timestamp: timestamp)
        return WebhookSignature(
            timestamp: timestamp, signatures: keys.map { Hex.encode($0.authenticate(message)) })
    }

    /// The header value.
    public var headerValue: String {
        (["t=\(timestamp)"] + signatures.map { "v1=\($0)" }).joined(separator: ",")
    }

    /// Parses a header value; nil when it has no `t=` or no `v1=`. Unknown schemes and empty
    /// values are skipped. Split on the bytes `,` and `=`, not on characters: a comma followed by
    /// a combining mark is one character, which would make the value split differently once
    /// written again (`headerValue`).
    public static func parse(_ value: String) -> WebhookSignature? {
        var timestamp: Int64?
        var signatures: [String] = []
        for part in value.utf8.split(separator: UInt8(ascii: ",")) {
            let pair = part.split(separator: UInt8(ascii: "="), maxSplits: 1)
            guard pair.count == 2 else { continue }
            let name = String(decoding: pair[0], as: UTF8.self).trimmingSpacesAndTabs()
            let field = String(decoding: pair[1], as: UTF8.self).trimmingSpacesAndTabs()
            if name == "t" {
                timestamp = Int64(field)
            } else if name == "v1", !field.isEmpty {
                signatures.append(field)
            }
        }
        guard let timestamp, !signatures.isEmpty else { return nil }
        return WebhookSignature(timestamp: timestamp, signatures: signatures)
    }

    /// Whether one `v1` matches `body` under `key` and the timestamp is within `tolerance`
    /// seconds of `now`; compared in constant time. A timestamp whose distance from `now` does
    /// not fit an `Int64` (a crafted `t=-9223372036854775808`) is refused, never a trap.
    public func verifies(
        body: [UInt8], key: any HMACKey, now: Int64, tolerance: Int64, crypto: any CryptoPrimitives
    ) -> Bool {
        let (distance, overflow) = now.subtractingReportingOverflow(timestamp)
        guard !overflow, tolerance >= 0, distance.magnitude <= tolerance.magnitude else { return false }
        let expected = Array(Hex.encode(key.authenticate(Self.signedPayload(body: body, timestamp: timestamp))).utf8)
        return signatures.contains { crypto.constantTimeEqual(Array($0.utf8), expected) }
    }

    static func signedPayload(body: [UInt8], timestamp: Int64) -> [UInt8] {
        Array("\(timestamp).".utf8) + body
    }
}

/// The hash and MAC primitives pure signing code needs, injected so Core stays free of C
/// and I/O; `PreviewCrypto.OpenSSLCrypto` is the implementation.
public protocol CryptoPrimitives: Sendable {
    /// SHA-256 (FIPS 180-4) of `data`.
    func sha256(_ data: [UInt8]) -> [UInt8]
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`.
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]
    /// `key` set up once for HMAC-SHA256 of many messages (a bearer-token key, a SigV4 signing
    /// key), so each message skips the key schedule.
    func hmacKey(_ key: [UInt8]) -> any HMACKey
    /// Compares in time that depends only on the lengths, for MACs and signatures.
    func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool
}

/// An HMAC-SHA256 key, prepared by `CryptoPrimitives.hmacKey`.
public protocol HMACKey: Sendable {
    /// HMAC-SHA256 (RFC 2104) of `message`: equal to `hmacSHA256(key:message:)` with this key.
    func authenticate(_ message: [UInt8]) -> [UInt8]
}

extension CryptoPrimitives {
    /// Without a faster way: the one-shot MAC with the key kept.
    public func hmacKey(_ key: [UInt8]) -> any HMACKey { OneShotHMACKey(crypto: self, key: key) }
}

/// `hmacSHA256(key:message:)` with a fixed key.
struct OneShotHMACKey: HMACKey {
    let crypto: any CryptoPrimitives
    let key: [UInt8]

    func authenticate(_ message: [UInt8]) -> [UInt8] { crypto.hmacSHA256(key: key, message: message) }
}

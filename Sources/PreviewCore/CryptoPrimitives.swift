/// The hash and MAC primitives pure signing code needs, injected so Core stays free of C
/// and I/O; `PreviewCrypto.OpenSSLCrypto` is the implementation.
public protocol CryptoPrimitives: Sendable {
    /// SHA-256 (FIPS 180-4) of `data`.
    func sha256(_ data: [UInt8]) -> [UInt8]
    /// HMAC-SHA256 (RFC 2104) of `message` under `key`.
    func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8]
    /// Compares in time that depends only on the lengths, for MACs and signatures.
    func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool
}

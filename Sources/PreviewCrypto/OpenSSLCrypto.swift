// SHA-256, MD5, one-shot and prepared HMAC-SHA256, constant-time comparison and random bytes.
public import PreviewCore

/// OpenSSL-backed implementation of Core's `CryptoPrimitives`: SHA-256 (FIPS 180-4),
/// HMAC-SHA256 (RFC 2104) and comparison through `CRYPTO_memcmp`.
public struct OpenSSLCrypto: CryptoPrimitives {
    public init() {}

    public func sha256(_ data: [UInt8]) -> [UInt8] { LibCrypto.sha256(data) }

    /// MD5 (RFC 1321): an integrity check some stores require (S3 `Content-MD5` on
    /// DeleteObjects), not a security primitive, so it is not part of `CryptoPrimitives`.
    public func md5(_ data: [UInt8]) throws -> [UInt8] { try LibCrypto.md5(data) }

    public func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        LibCrypto.hmacSHA256(key: key, message: message)
    }

    /// A keyed OpenSSL context kept as a template and copied per message.
    public func hmacKey(_ key: [UInt8]) -> any HMACKey { PreparedHMACKey(template: LibCrypto.HMACTemplate(key: key)) }

    /// Lengths are not secret (a MAC's length is public), so different lengths return at once.
    public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool { LibCrypto.constantTimeEqual(a, b) }
}

/// An HMAC-SHA256 key held as a keyed OpenSSL context (`LibCrypto.HMACTemplate`).
struct PreparedHMACKey: HMACKey {
    let template: LibCrypto.HMACTemplate

    func authenticate(_ message: [UInt8]) -> [UInt8] { template.authenticate(message) }
}

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw CryptoError(message: "random byte count \(count) is negative") }
        return try LibCrypto.randomBytes(count)
    }
}

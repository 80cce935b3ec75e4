// SHA-256, one-shot HMAC-SHA256, constant-time comparison and random bytes.
import COpenSSL
public import PreviewCore

/// OpenSSL-backed implementation of Core's `CryptoPrimitives`: SHA-256 (FIPS 180-4),
/// HMAC-SHA256 (RFC 2104) and comparison through `CRYPTO_memcmp`.
///
/// For many messages under one key, `HMACSHA256Key` is faster.
public struct OpenSSLCrypto: CryptoPrimitives {
    public init() {}

    public func sha256(_ data: [UInt8]) -> [UInt8] {
        let algorithms = FetchedAlgorithms.required
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = withNonNilBytes(data) { bytes, count in
            EVP_Digest(bytes, count, &digest, &length, algorithms.sha256, nil)
        }
        guard ok == 1, length == 32 else {
            fatalError("EVP_Digest SHA256 failed: \(drainOpenSSLErrors())")
        }
        return digest
    }

    public func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        let algorithms = FetchedAlgorithms.required
        guard let context = EVP_MAC_CTX_new(algorithms.hmac) else {
            fatalError("EVP_MAC_CTX_new failed: \(drainOpenSSLErrors())")
        }
        defer { EVP_MAC_CTX_free(context) }
        guard initHMAC(context, key: key) else {
            fatalError("EVP_MAC_init failed: \(drainOpenSSLErrors())")
        }
        return finishHMAC(context, message: message)
    }

    /// Lengths are not secret (a MAC's length is public), so different lengths return at once.
    public func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { left in
            b.withUnsafeBytes { right in
                CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0
            }
        }
    }
}

/// Cryptographically secure random bytes from OpenSSL's DRBG (`RAND_bytes`).
public enum SecureRandom {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw CryptoError(message: "random byte count \(count) is negative") }
        var result = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let chunk = min(count - filled, Int(Int32.max))
            let ok = result.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress.map { RAND_bytes($0 + filled, Int32(chunk)) } ?? 0
            }
            guard ok == 1 else { throw CryptoError.fromQueue("RAND_bytes") }
            filled += chunk
        }
        return result
    }
}

/// Keys `context` for HMAC-SHA256; false on failure (the error queue holds why).
func initHMAC(_ context: OpaquePointer, key: [UInt8]) -> Bool {
    // OSSL_PARAM keeps the pointers, so both strings must outlive EVP_MAC_init.
    OSSL_MAC_PARAM_DIGEST.withCString { name in
        "SHA256".withCString { digest in
            var params = [
                OSSL_PARAM_construct_utf8_string(name, UnsafeMutablePointer(mutating: digest), 0),
                OSSL_PARAM_construct_end(),
            ]
            return withNonNilBytes(key) { bytes, count in
                EVP_MAC_init(context, bytes, count, &params) == 1
            }
        }
    }
}

/// Feeds `message` to a keyed context and returns the 32-byte tag; the context is spent.
func finishHMAC(_ context: OpaquePointer, message: [UInt8]) -> [UInt8] {
    var tag = [UInt8](repeating: 0, count: 32)
    var length = 0
    let ok = withNonNilBytes(message) { bytes, count in
        EVP_MAC_update(context, bytes, count) == 1 && EVP_MAC_final(context, &tag, &length, tag.count) == 1
    }
    guard ok, length == 32 else {
        fatalError("HMAC-SHA256 update/final failed: \(drainOpenSSLErrors())")
    }
    return tag
}

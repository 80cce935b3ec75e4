// RSA signing for GCS V4 (GOOG4-RSA-SHA256) and JWT RS256.
import COpenSSL

/// An RSA private key read from PEM: PKCS#1 (`BEGIN RSA PRIVATE KEY`) or unencrypted PKCS#8
/// (`BEGIN PRIVATE KEY`, the form in Google service-account JSON).
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after `init`; OpenSSL 3 allows
/// concurrent signing with one key (each signature gets its own `EVP_MD_CTX`).
public final class RSAPrivateKey: @unchecked Sendable {
    private let key: OpaquePointer

    public init(pem: String) throws {
        let key = try readPEMKey(pem, kind: .privateKey, context: "RSA private key")
        guard EVP_PKEY_is_a(key, "RSA") == 1 else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            throw CryptoError(message: "RSA private key: the PEM holds a key of another type")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2) over `message`; as long as the modulus.
    public func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        let algorithms = try FetchedAlgorithms.get()
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.fromQueue("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        // PKCS#1 v1.5 is the default padding for RSA signing contexts.
        guard EVP_DigestSignInit(context, nil, algorithms.sha256, nil, key) == 1 else {
            throw CryptoError.fromQueue("EVP_DigestSignInit")
        }
        return try withNonNilBytes(message) { bytes, count in
            var length = 0
            guard EVP_DigestSign(context, nil, &length, bytes, count) == 1 else {
                throw CryptoError.fromQueue("EVP_DigestSign (size)")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, bytes, count) == 1 else {
                throw CryptoError.fromQueue("EVP_DigestSign")
            }
            return Array(signature.prefix(length))
        }
    }
}

// Signature verification for JWT RS256 / ES256.
import COpenSSL

/// A public key read from PEM (`BEGIN PUBLIC KEY`, SubjectPublicKeyInfo): RSA or EC.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never modified after `init`; each verification
/// gets its own `EVP_MD_CTX`.
public final class PublicKey: @unchecked Sendable {
    private let key: OpaquePointer

    public init(pem: String) throws {
        let key = try readPEMKey(pem, kind: .publicKey, context: "public key")
        guard EVP_PKEY_is_a(key, "RSA") == 1 || EVP_PKEY_is_a(key, "EC") == 1 else {
            EVP_PKEY_free(key)
            ERR_clear_error()
            throw CryptoError(message: "public key: only RSA and EC keys are supported")
        }
        self.key = key
    }

    deinit { EVP_PKEY_free(key) }

    /// True when `signature` is valid for `message` under SHA-256: RSASSA-PKCS1-v1_5 for RSA
    /// keys (RS256), DER-encoded ECDSA for EC keys (ES256: convert JOSE signatures with
    /// `ecdsaDERSignature(fromRaw:)` first). Any failure is simply `false`.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard !signature.isEmpty, let algorithms = try? FetchedAlgorithms.get() else { return false }
        guard let context = EVP_MD_CTX_new() else {
            drainOpenSSLErrors()
            return false
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, algorithms.sha256, nil, key) == 1 else {
            drainOpenSSLErrors()
            return false
        }
        let result = signature.withUnsafeBufferPointer { signatureBuffer in
            withNonNilBytes(message) { bytes, count in
                signatureBuffer.baseAddress.map {
                    EVP_DigestVerify(context, $0, signatureBuffer.count, bytes, count)
                } ?? 0
            }
        }
        if result != 1 { drainOpenSSLErrors() }  // a bad signature leaves an entry behind
        return result == 1
    }

    /// Converts a JOSE ECDSA signature (RFC 7518 §3.4: `r || s`, each as long as the curve
    /// order, 64 bytes for P-256) into the DER `ECDSA-Sig-Value` OpenSSL verifies
    /// (RFC 3279 §2.2.3). Nil unless the length is even and at most 96 (P-384).
    public static func ecdsaDERSignature(fromRaw raw: [UInt8]) -> [UInt8]? {
        guard !raw.isEmpty, raw.count % 2 == 0, raw.count <= 96 else { return nil }
        let half = raw.count / 2
        let body = derInteger(raw[..<half]) + derInteger(raw[half...])
        return [0x30, UInt8(body.count)] + body  // at most 2 * (2 + 49) bytes: short-form length
    }

    /// A DER INTEGER holding the unsigned big-endian `magnitude`.
    private static func derInteger(_ magnitude: ArraySlice<UInt8>) -> [UInt8] {
        var content = Array(magnitude.drop { $0 == 0 })
        if content.isEmpty { content = [0] }
        if let first = content.first, first & 0x80 != 0 { content.insert(0, at: 0) }
        return [0x02, UInt8(content.count)] + content
    }
}

// Signature verification for JWT RS256 / ES256.

/// A public key read from PEM (`BEGIN PUBLIC KEY`, SubjectPublicKeyInfo): RSA or EC.
///
/// `Sendable` (checked): its only state is a `LibCrypto.PKey`, never modified after `init`;
/// each verification gets its own `EVP_MD_CTX` (see `LibCrypto.PKey`).
public final class PublicKey: Sendable {
    private let key: LibCrypto.PKey

    public init(pem: String) throws {
        let key = try LibCrypto.PKey(pem: pem, kind: .publicKey, context: "public key")
        guard key.isA(anyOf: "RSA", "EC") else {
            throw CryptoError(message: "public key: only RSA and EC keys are supported")
        }
        self.key = key
    }

    /// True when `signature` is valid for `message` under SHA-256: RSASSA-PKCS1-v1_5 for RSA
    /// keys (RS256), DER-encoded ECDSA for EC keys (ES256: convert JOSE signatures with
    /// `ecdsaDERSignature(fromRaw:)` first). Any failure is simply `false`.
    public func verifySHA256(signature: [UInt8], message: [UInt8]) -> Bool {
        key.verifySHA256(signature: signature, message: message)
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

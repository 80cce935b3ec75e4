// JWS signature verification with a provider's public keys: RS256, ES256, EdDSA.
public import PreviewCore

extension OpenSSLCrypto: PublicKeyCrypto {
    /// The key as OpenSSL reads its SubjectPublicKeyInfo; throws when it refuses the key (an
    /// EC point off the curve, a malformed modulus).
    public func signatureKey(_ jwk: JWK) throws -> any SignatureKey {
        let key = try LibCrypto.PublicKey(subjectPublicKeyInfo: PublicKeyDER.subjectPublicKeyInfo(jwk))
        let expected: String
        switch jwk.algorithm {
        case .rs256: expected = "RSA"
        case .es256: expected = "EC"
        case .edDSA: expected = "ED25519"
        }
        guard key.isA(expected) else { throw CryptoError(message: "the key is not an \(expected) key") }
        return OpenSSLSignatureKey(key: key, algorithm: jwk.algorithm)
    }
}

/// A public key and the one algorithm it verifies.
struct OpenSSLSignatureKey: SignatureKey {
    let key: LibCrypto.PublicKey
    let algorithm: JWK.Algorithm

    func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        switch algorithm {
        case .rs256:
            return key.verify(signature, of: message, sha256: true)
        case .es256:
            // JWS carries R || S, 32 bytes each (RFC 7518 §3.4); OpenSSL reads DER.
            guard let der = PublicKeyDER.ecdsaSignature(raw: signature) else { return false }
            return key.verify(der, of: message, sha256: true)
        case .edDSA:
            guard signature.count == 64 else { return false }
            return key.verify(signature, of: message, sha256: false)
        }
    }
}

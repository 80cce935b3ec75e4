// RSA signing for GCS V4 (GOOG4-RSA-SHA256).

/// An RSA private key read from PEM: PKCS#1 (`BEGIN RSA PRIVATE KEY`) or unencrypted PKCS#8
/// (`BEGIN PRIVATE KEY`, the form in Google service-account JSON).
///
/// `Sendable` (checked): its only state is a `LibCrypto.PKey`, never modified after `init`;
/// OpenSSL 3 allows concurrent signing with one key (see `LibCrypto.PKey`).
public final class RSAPrivateKey: Sendable {
    private let key: LibCrypto.PKey

    public init(pem: String) throws {
        let key = try LibCrypto.PKey(privateKeyPEM: pem, context: "RSA private key")
        guard key.isA(anyOf: "RSA") else {
            throw CryptoError(message: "RSA private key: the PEM holds a key of another type")
        }
        self.key = key
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (RFC 8017 §8.2) over `message`; as long as the modulus.
    public func signSHA256(_ message: [UInt8]) throws -> [UInt8] {
        // PKCS#1 v1.5 is the default padding for RSA signing contexts.
        try key.signSHA256(message)
    }
}

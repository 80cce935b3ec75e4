/// Signature verification with public keys, injected like `CryptoPrimitives` so Core stays
/// free of C; `PreviewCrypto.OpenSSLCrypto` is the implementation.
public protocol PublicKeyCrypto: Sendable {
    /// `jwk` set up for verification; throws when the library refuses the key (an EC point
    /// not on the curve, a malformed modulus).
    func signatureKey(_ jwk: JWK) throws -> any SignatureKey
}

/// A public key prepared once, verifying many JWS signatures of its one algorithm.
public protocol SignatureKey: Sendable {
    /// Whether `signature` (in JWS form: RSASSA-PKCS1-v1_5 bytes, ES256 `R || S`, Ed25519 64
    /// bytes) signs `message` under this key.
    func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool
}

/// The identity provider's keys a verifier uses, by `kid`, with the generation of the set
/// (each load that changed the keys counts one up) so holders of verified tokens can tell a
/// rotation.
public struct JWTPublicKeys: Sendable {
    public struct Entry: Sendable {
        public let algorithm: JWK.Algorithm
        public let key: any SignatureKey

        public init(algorithm: JWK.Algorithm, key: any SignatureKey) {
            self.algorithm = algorithm
            self.key = key
        }
    }

    public let generation: UInt64
    public let keys: [String: Entry]

    public static let none = JWTPublicKeys(generation: 0, keys: [:])

    public init(generation: UInt64, keys: [String: Entry]) {
        self.generation = generation
        self.keys = keys
    }

    /// The keys of `set`, each prepared by `crypto`; a key the library refuses is left out and
    /// named in `refused`.
    public init(_ set: JWKSet, generation: UInt64, crypto: any PublicKeyCrypto) {
        var keys: [String: Entry] = [:]
        var refused: [String] = []
        for jwk in set.keys {
            do {
                keys[jwk.kid] = Entry(algorithm: jwk.algorithm, key: try crypto.signatureKey(jwk))
            } catch {
                refused.append("kid '\(jwk.kid)': \(error)")
            }
        }
        self.generation = generation
        self.keys = keys
        self.refused = refused
    }

    /// Keys of the set the crypto library refused.
    public private(set) var refused: [String] = []
}

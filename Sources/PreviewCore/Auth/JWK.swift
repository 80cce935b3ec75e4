/// A public signing key of an identity provider's JWKS document (RFC 7517), reduced to what
/// verifies a token: its `kid` and its key material, whose type alone decides the algorithm
/// (RFC 7518 §3.3 RS256, §3.4 ES256; RFC 8037 EdDSA with Ed25519).
public struct JWK: Sendable, Equatable {
    /// The JWS algorithms a public key may verify, one per key type.
    public enum Algorithm: String, Sendable, Equatable {
        case rs256 = "RS256"
        case es256 = "ES256"
        case edDSA = "EdDSA"
    }

    public enum Material: Sendable, Equatable {
        /// Modulus and public exponent, big-endian without leading zero bytes.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// An uncompressed P-256 point: 32-byte big-endian coordinates.
        case p256(x: [UInt8], y: [UInt8])
        /// The 32-byte Ed25519 public key (RFC 8032 §5.1.5).
        case ed25519([UInt8])
    }

    public let kid: String
    public let material: Material

    public init(kid: String, material: Material) {
        self.kid = kid
        self.material = material
    }

    /// The one algorithm this key verifies: never taken from a token.
    public var algorithm: Algorithm {
        switch material {
        case .rsa: return .rs256
        case .p256: return .es256
        case .ed25519: return .edDSA
        }
    }

    /// The smallest RSA modulus accepted (NIST SP 800-131A: 2048 bits), and the largest, so a
    /// hostile document cannot make each verification cost seconds.
    public static let minimumRSABits = 2048
    public static let maximumRSABits = 8192
}

/// `kid` values this service accepts, in token headers and in key documents: 1 to 128
/// printable ASCII characters without `/`, `\` or `..`, so a kid can never name a path or
/// smuggle control characters into a log line.
public enum JWTKeyID {
    public static let maxLength = 128

    public static func isValid(_ kid: String) -> Bool {
        let bytes = kid.utf8
        guard (1...maxLength).contains(bytes.count),
            bytes.allSatisfy({ (0x21...0x7E).contains($0) && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "\\") })
        else { return false }
        return !kid.contains("..")
    }
}

/// The usable signing keys of a JWKS document (RFC 7517 §5), with why each other key was left out.
public struct JWKSet: Sendable, Equatable {
    /// Documents larger than this are refused unread.
    public static let maxDocumentBytes = 1 << 20
    /// Documents listing more keys than this are refused (providers publish a handful).
    public static let maxKeys = 100

    public let keys: [JWK]
    /// One line per key left out: which (kid, or its position) and why.
    public let ignored: [String]

    public init(keys: [JWK], ignored: [String] = []) {
        self.keys = keys
        self.ignored = ignored
    }

    /// The key named `kid`.
    public func key(_ kid: String) -> JWK? { keys.first { $0.kid == kid } }

    /// Reads a JWKS document: plain UTF-8 JSON with distinct keys, `{"keys":[...]}`, at most
    /// `maxDocumentBytes` and `maxKeys`. Keys that are not public signing keys of RS256 (2048 to
    /// 8192 bits), ES256 (P-256) or EdDSA (Ed25519) with a valid `kid` are left out (`ignored`):
    /// `use` other than `sig`, `key_ops` without `verify`, an `alg` that is not the key type's
    /// one, private members, other curves and types. A document without any usable key, or
    /// with a kid twice, is refused.
    public static func parse(_ bytes: [UInt8]) throws(JWTKeySet.ConfigurationError) -> JWKSet {
        guard bytes.count <= maxDocumentBytes else {
            throw .init("the key set is \(bytes.count) bytes; at most \(maxDocumentBytes) are read")
        }
        guard let document = JSONObjectReader(bytes), document.members.allSatisfy({ $0.value.hasDistinctKeys })
        else { throw .init("the key set is not a JSON object (plain UTF-8, distinct keys)") }
        guard case .array(let entries)? = document.value("keys") else {
            throw .init("the key set has no \"keys\" array")
        }
        guard entries.count <= maxKeys else {
            throw .init("the key set lists \(entries.count) keys; at most \(maxKeys) are read")
        }
        var keys: [JWK] = []
        var ignored: [String] = []
        for (index, entry) in entries.enumerated() {
            switch key(entry) {
            case .success(let key):
                guard !keys.contains(where: { $0.kid == key.kid }) else {
                    throw .init("the key set lists kid '\(key.kid)' twice")
                }
                keys.append(key)
            case .failure(let reason):
                ignored.append("key \(index)\(reason.kid.map { " (kid '\($0)')" } ?? ""): \(reason.why)")
            }
        }
        guard !keys.isEmpty else {
            throw .init(
                "the key set holds no usable signing key"
                    + (ignored.isEmpty ? "" : " (" + ignored.joined(separator: "; ") + ")"))
        }
        return JWKSet(keys: keys, ignored: ignored)
    }

    private struct Refusal: Error {
        var kid: String?
        var why: String
    }

    private static func key(_ entry: JSONValue) -> Result<JWK, Refusal> {
        guard var object = JSONObjectReader(entry) else { return .failure(Refusal(why: "not an object")) }
        let kidText = object.optionalString("kid")
        let printableKid = kidText.flatMap { JWTKeyID.isValid($0) ? $0 : nil }
        func refuse(_ why: String) -> Result<JWK, Refusal> { .failure(Refusal(kid: printableKid, why: why)) }
        guard let kid = kidText, JWTKeyID.isValid(kid) else {
            return refuse("no valid kid (1 to \(JWTKeyID.maxLength) printable ASCII characters without / \\ ..)")
        }
        let kty = object.optionalString("kty")
        let use = object.optionalString("use")
        let alg = object.optionalString("alg")
        let crv = object.optionalString("crv")
        if object.failed { return refuse("kty, kid, use, alg or crv is not a string") }
        if let use, use != "sig" { return refuse("use is '\(use)', not 'sig'") }
        if let operations = object.value("key_ops") {
            guard case .array(let values) = operations, values.contains(.string("verify")) else {
                return refuse("key_ops does not list verify")
            }
        }
        // RFC 7518 §6.2.2 / §6.3.2 / RFC 8037 §2: a private key has `d`; it never belongs in a
        // published key set, and holding it would make this process a signer.
        if object.contains("d") { return refuse("holds private key material (d)") }
        let material: JWK.Material
        switch kty {
        case "RSA":
            guard alg == nil || alg == JWK.Algorithm.rs256.rawValue else {
                return refuse("RSA key for alg \(alg ?? "")")
            }
            guard let n = bytes(&object, "n").map(withoutLeadingZeros),
                let e = bytes(&object, "e").map(withoutLeadingZeros)
            else { return refuse("n or e is not base64url") }
            let bits = bitLength(n)
            guard bits >= JWK.minimumRSABits, bits <= JWK.maximumRSABits else {
                return refuse("RSA modulus of \(bits) bits (\(JWK.minimumRSABits) to \(JWK.maximumRSABits) accepted)")
            }
            guard (1...8).contains(e.count), let last = e.last, last & 1 == 1, e != [1] else {
                return refuse("RSA exponent is not an odd number above 1 of at most 64 bits")
            }
            material = .rsa(modulus: n, exponent: e)
        case "EC":
            guard crv == "P-256" else { return refuse("EC curve \(crv ?? "(none)"); only P-256 is accepted") }
            guard alg == nil || alg == JWK.Algorithm.es256.rawValue else {
                return refuse("P-256 key for alg \(alg ?? "")")
            }
            guard let x = bytes(&object, "x"), let y = bytes(&object, "y"), x.count == 32, y.count == 32 else {
                return refuse("x or y is not 32 bytes of base64url")
            }
            material = .p256(x: x, y: y)
        case "OKP":
            guard crv == "Ed25519" else { return refuse("OKP curve \(crv ?? "(none)"); only Ed25519 is accepted") }
            // RFC 9864 names the same algorithm "Ed25519".
            guard alg == nil || alg == JWK.Algorithm.edDSA.rawValue || alg == "Ed25519" else {
                return refuse("Ed25519 key for alg \(alg ?? "")")
            }
            guard let x = bytes(&object, "x"), x.count == 32 else { return refuse("x is not 32 bytes of base64url") }
            material = .ed25519(x)
        default:
            return refuse("kty \(kty ?? "(none)") is not RSA, EC or OKP")
        }
        return .success(JWK(kid: kid, material: material))
    }

    private static func bytes(_ object: inout JSONObjectReader, _ name: String) -> [UInt8]? {
        guard let text = object.optionalString(name), !text.isEmpty else { return nil }
        return Base64URL.decode(text)
    }

    private static func withoutLeadingZeros(_ bytes: [UInt8]) -> [UInt8] {
        Array(bytes.drop { $0 == 0 })
    }

    private static func bitLength(_ bytes: [UInt8]) -> Int {
        guard let first = bytes.first else { return 0 }
        return (bytes.count - 1) * 8 + (8 - first.leadingZeroBitCount)
    }
}

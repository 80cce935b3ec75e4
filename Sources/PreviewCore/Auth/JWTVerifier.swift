/// Verifies bearer tokens (RFC 7519 §7.2 validation): HS256 with our secrets (RFC 7518 §3.2
/// HMAC), and RS256, ES256 and EdDSA with an identity provider's public keys (JWKS).
///
/// Order, kept on purpose: length, shape and header first (`alg` must be one we verify, no
/// `crit` extension, a `kid` without path characters), then the key (by `kid`; a public key
/// verifies only its own algorithm, and an HS256 token naming one is refused), then the
/// signature (a MAC compared in constant time, or the public key's check; an ES256 one in
/// either of its two forms, only the low-S one held as known), and only then the claims are parsed, their sizes capped, `sub` checked
/// (and a provider's keyed by its issuer, `TokenSubject`) and the times checked, so unsigned
/// input never reaches the claims decoder. Header and claims are read by one strict reader
/// (`JWTJSON`): plain UTF-8 JSON with distinct keys at every depth, or the token is malformed;
/// there is no second, more lenient decoder that could read the same bytes differently.
public struct JWTVerifier: Sendable {
    /// Tokens longer than this are refused unparsed.
    public static let maxTokenLength = 8192
    /// The longest `sub` accepted, in UTF-8 bytes: identity providers' subjects fit (OpenID
    /// Connect caps `sub` at 255 ASCII characters), and every held viewer and token keeps one
    /// (a provider's within its issuer-keyed form, at most `TokenSubject.maxKeyBytes`).
    public static let maxSubjectBytes = 255
    /// The most `stream_ids` accepted: a streamer owns a handful; each held token keeps them all.
    public static let maxStreamIDs = 1000
    /// The default longest lifetime (`exp - iat`) a token may have: 24 hours.
    public static let defaultMaxLifetime: Int64 = 86400

    public let keys: JWTKeySet
    /// Tokens whose `exp - iat` exceeds this many seconds are refused, so a leaked token
    /// cannot have been minted to work for years.
    public let maxLifetime: Int64
    private let crypto: any CryptoPrimitives
    /// The keys of `keys`, set up once for HMAC (every authenticated request verifies a MAC).
    private let defaultMAC: any HMACKey
    private let namedMACs: [String: any HMACKey]

    /// The identity provider's keys (RS256, ES256, EdDSA by `kid`); none by default.
    public private(set) var publicKeys = JWTPublicKeys.none
    /// What tokens verified by `publicKeys` must carry, and where their claims are.
    public let identity: IdentityTokenPolicy

    public init(
        keys: JWTKeySet, publicKeys: JWTPublicKeys = .none, identity: IdentityTokenPolicy = IdentityTokenPolicy(),
        maxLifetime: Int64 = defaultMaxLifetime, crypto: any CryptoPrimitives
    ) {
        self.keys = keys
        self.publicKeys = publicKeys
        self.identity = identity
        self.maxLifetime = maxLifetime
        self.crypto = crypto
        defaultMAC = crypto.hmacKey(keys.defaultKey)
        namedMACs = keys.keys.mapValues { crypto.hmacKey($0) }
    }

    /// This verifier with another provider key set (a reload), the HMAC keys kept as prepared.
    public func with(publicKeys: JWTPublicKeys) -> JWTVerifier {
        var copy = self
        copy.publicKeys = publicKeys
        return copy
    }

    /// A token whose shape, signature and claims passed, before its times are checked: what
    /// `authenticate` found does not change with the clock, so a caller may keep it for the
    /// token's next use and `check` only the times then.
    public struct Authenticated: Sendable {
        public let claims: TokenClaims
        let notBefore: Int64?
        /// False for the high-S twin of an ES256 token (`ES256Signature`): it is accepted like
        /// its low-S form, but only that form is held as one token's text.
        public var isCanonical = true
    }

    /// The claims of `token` if it is well-formed, signed by a key of the set, no longer-lived
    /// than `maxLifetime`, and valid at `now` (Unix seconds), allowing `leeway` seconds of
    /// clock difference both ways for `exp`, `nbf` and `iat`.
    public func verify(_ token: String, now: Int64, leeway: Int64 = 30) -> Result<TokenClaims, TokenError> {
        authenticate(token).flatMap { check($0, now: now, leeway: leeway) }
    }

    /// Everything of `verify` that does not depend on the time: shape, header, signature, claims present.
    public func authenticate(_ token: String) -> Result<Authenticated, TokenError> {
        guard token.utf8.count <= Self.maxTokenLength else { return .failure(.malformed) }
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(Substring(parts[0])),
            let header = JWTJSON.header(headerBytes), let alg = header.alg
        else { return .failure(.malformed) }
        // Before the signature part is looked at: `alg: none` tokens have an empty one. The
        // public-key algorithms are known only with a key set; which key verifies is then
        // decided by `kid`, and that key's own algorithm must be the token's.
        let publicKey: Bool
        switch alg {
        case JWTAlgorithm.hs256: publicKey = false
        case JWK.Algorithm.rs256.rawValue, JWK.Algorithm.es256.rawValue, JWK.Algorithm.edDSA.rawValue:
            guard !publicKeys.keys.isEmpty else { return .failure(.unsupportedAlgorithm(alg)) }
            publicKey = true
        default: return .failure(.unsupportedAlgorithm(alg))
        }
        // RFC 7515 §4.1.11: a recipient that does not understand a listed extension must refuse
        // the token; this verifier understands none.
        guard !header.hasCritical else { return .failure(.criticalHeader) }
        guard header.typ.map({ Self.acceptedTypes(publicKey: publicKey).contains($0.uppercased()) }) ?? true,
            header.kid.map(JWTKeyID.isValid) ?? true,
            !parts[1].isEmpty, !parts[2].isEmpty,
            let payloadBytes = Base64URL.decode(Substring(parts[1])),
            let signature = Base64URL.decode(Substring(parts[2]))
        else { return .failure(.malformed) }
        let signingInput = Array(token.utf8[..<parts[1].endIndex])
        if publicKey {
            guard let kid = header.kid else { return .failure(.malformed) }
            guard let entry = publicKeys.keys[kid] else { return .failure(.unknownKeyID(kid)) }
            guard entry.algorithm.rawValue == alg else { return .failure(.algorithmMismatch(alg)) }
            guard entry.key.verify(signature, of: signingInput) else { return .failure(.badSignature) }
            let canonical = entry.algorithm != .es256 || ES256Signature.hasLowS(signature)
            return identityClaims(payloadBytes).map { authenticated in
                var authenticated = authenticated
                authenticated.isCanonical = canonical
                return authenticated
            }
        }
        let key: any HMACKey
        if let kid = header.kid {
            // A provider's public key is public: as an HMAC secret it would let anyone sign.
            guard publicKeys.keys[kid] == nil else { return .failure(.algorithmMismatch(alg)) }
            guard let named = namedMACs[kid] else { return .failure(.unknownKeyID(kid)) }
            key = named
        } else {
            key = defaultMAC
        }

        let expected = key.authenticate(signingInput)
        guard crypto.constantTimeEqual(expected, signature) else { return .failure(.badSignature) }

        guard let payload = JWTJSON.payload(payloadBytes) else {
            return .failure(.malformed)
        }
        guard let sub = payload.sub else { return .failure(.missingClaim("sub")) }
        guard let roleText = payload.role else { return .failure(.missingClaim("role")) }
        guard let streamIds = payload.streamIds else { return .failure(.missingClaim("stream_ids")) }
        guard let iat = payload.iat else { return .failure(.missingClaim("iat")) }
        guard let exp = payload.exp else { return .failure(.missingClaim("exp")) }
        guard let role = Role(rawValue: roleText) else { return .failure(.invalidRole) }
        guard sub.utf8.count <= Self.maxSubjectBytes else { return .failure(.claimTooLarge("sub")) }
        guard TokenSubject.isAcceptableForHS256(sub) else { return .failure(.invalidSubject) }
        guard streamIds.count <= Self.maxStreamIDs else { return .failure(.claimTooLarge("stream_ids")) }
        let claims = TokenClaims(
            subject: sub, role: role, streamIds: streamIds.map(\.value), issuedAt: iat, expiresAt: exp)
        return .success(Authenticated(claims: claims, notBefore: payload.nbf))
    }

    /// The claims of a token signed by a provider's key: issuer and audience first, then the
    /// claims under the policy's names, the subject keyed by the issuer.
    private func identityClaims(_ payloadBytes: [UInt8]) -> Result<Authenticated, TokenError> {
        guard let payload = JWTJSON.identityPayload(payloadBytes, policy: identity) else {
            return .failure(.malformed)
        }
        if let problem = identity.check(issuer: payload.iss, audience: payload.aud) { return .failure(problem) }
        // Even where any issuer is accepted, the subject is only unique within one.
        guard let iss = payload.iss, !iss.isEmpty else { return .failure(.missingClaim("iss")) }
        guard let sub = payload.sub else { return .failure(.missingClaim("sub")) }
        guard let iat = payload.iat else { return .failure(.missingClaim("iat")) }
        guard let exp = payload.exp else { return .failure(.missingClaim("exp")) }
        let role: Role
        switch payload.role {
        case .success(let found): role = found
        case .failure(let error): return .failure(error)
        }
        guard sub.utf8.count <= Self.maxSubjectBytes else { return .failure(.claimTooLarge("sub")) }
        guard TokenSubject.isAcceptable(sub) else { return .failure(.invalidSubject) }
        guard payload.streamIds.count <= Self.maxStreamIDs else {
            return .failure(.claimTooLarge(identity.streamsClaim.text))
        }
        let claims = TokenClaims(
            subject: TokenSubject.providerKey(issuer: iss, subject: sub, crypto: crypto), role: role,
            streamIds: payload.streamIds, issuedAt: iat, expiresAt: exp)
        return .success(Authenticated(claims: claims, notBefore: payload.nbf))
    }

    /// The claims of an authenticated token if it is valid at `now` (see `verify`).
    public func check(_ token: Authenticated, now: Int64, leeway: Int64 = 30) -> Result<TokenClaims, TokenError> {
        let leeway = max(0, leeway)
        let (iat, exp) = (token.claims.issuedAt, token.claims.expiresAt)
        guard now < saturatingAdd(exp, leeway) else { return .failure(.expired) }
        guard iat <= saturatingAdd(now, leeway) else { return .failure(.notYetValid) }
        if let nbf = token.notBefore, nbf > saturatingAdd(now, leeway) { return .failure(.notYetValid) }
        let (lifetime, overflow) = exp.subtractingReportingOverflow(iat)
        guard !overflow, lifetime <= maxLifetime else { return .failure(.lifetimeTooLong) }
        return .success(token.claims)
    }

    /// The `typ` values accepted (upper-cased): `JWT`, and for a provider's tokens also the
    /// access-token type of RFC 9068 §2.1 (`at+jwt`, some providers write the media type).
    private static func acceptedTypes(publicKey: Bool) -> [String] {
        publicKey ? ["JWT", "AT+JWT", "APPLICATION/AT+JWT"] : ["JWT"]
    }

    /// `a + b` clamped to Int64's range: hostile `exp` values near the limits must not trap.
    private func saturatingAdd(_ a: Int64, _ b: Int64) -> Int64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? (b > 0 ? Int64.max : Int64.min) : sum
    }
}

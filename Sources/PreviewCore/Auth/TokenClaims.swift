/// What a bearer token lets its holder do.
public enum Role: String, Sendable, Codable, CaseIterable {
    /// May upload previews for the streams in `TokenClaims.streamIds`.
    case streamer
    /// May read the feed and mark streams liked or seen.
    case viewer
    /// May do anything, including operator endpoints.
    case admin
}

/// The claims of an API bearer token (RFC 7519 §4.1 `sub`, `iat`, `exp`, plus the private
/// claims `role` and `stream_ids`).
public struct TokenClaims: Sendable, Equatable {
    /// The caller's key: the `sub` of our HS256 tokens, an identity provider's `sub` keyed by
    /// its issuer (`TokenSubject`).
    public var subject: String
    public var role: Role
    /// The streams the holder owns (`stream_ids`); written as decimal strings so that
    /// JavaScript clients keep all 64 bits.
    public var streamIds: [Int64]
    /// Unix seconds (`iat`).
    public var issuedAt: Int64
    /// Unix seconds (`exp`); the token is refused from this instant on (plus leeway).
    public var expiresAt: Int64

    public init(subject: String, role: Role, streamIds: [Int64], issuedAt: Int64, expiresAt: Int64) {
        self.subject = subject
        self.role = role
        self.streamIds = streamIds
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}

/// Why a bearer token is refused.
public enum TokenError: Error, Sendable, Equatable {
    /// Not three base64url parts of JSON objects, a claim of the wrong type, or an
    /// invalid stream ID.
    case malformed
    /// `alg` is not one this verifier knows (`none`, HS512 and every other value), or names a
    /// public-key algorithm while no key set is configured.
    case unsupportedAlgorithm(String)
    /// The header has a `crit` member: it names extensions this verifier does not implement.
    case criticalHeader
    /// The header names a `kid` that is not in the key set.
    case unknownKeyID(String)
    case badSignature
    /// Now is at or past `exp + leeway`.
    case expired
    /// `iat` or `nbf` lies more than the leeway in the future.
    case notYetValid
    /// `exp - iat` is longer than the verifier's maximum lifetime.
    case lifetimeTooLong
    /// A required claim (`sub`, `role`, `stream_ids`, `iat`, `exp`; a provider's `iss`) is
    /// absent or null.
    case missingClaim(String)
    /// `role` is not one of `Role`'s values.
    case invalidRole
    /// `sub` is empty or holds a control, separator or bidirectional character
    /// (`TokenSubject.isAcceptable`), or an HS256 `sub` starts with `idp:`, the prefix of
    /// provider subjects.
    case invalidSubject
    /// `sub` is longer than `JWTVerifier.maxSubjectBytes`, or `stream_ids` has more than
    /// `JWTVerifier.maxStreamIDs` entries (the claim's name).
    case claimTooLarge(String)
    /// The key named by `kid` verifies another algorithm than the token's `alg` (an HS256
    /// token naming a provider's public key: algorithm confusion).
    case algorithmMismatch(String)
    /// `iss` is absent or not one of the configured issuers.
    case wrongIssuer
    /// `aud` is absent or holds none of the configured audiences.
    case wrongAudience
}

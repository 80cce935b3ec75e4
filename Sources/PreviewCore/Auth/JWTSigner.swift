/// Issues HS256 bearer tokens: JWS compact serialisation (RFC 7515 §7.1) with HMAC-SHA256
/// (RFC 7518 §3.2) over `base64url(header) "." base64url(payload)`.
public struct JWTSigner: Sendable {
    private let crypto: any CryptoPrimitives

    public init(crypto: any CryptoPrimitives) {
        self.crypto = crypto
    }

    /// The token for `claims`, header `{"alg":"HS256","kid":...,"typ":"JWT"}` (keys sorted,
    /// `kid` only when given). Stream IDs are written as decimal strings.
    public func sign(_ claims: TokenClaims, key: [UInt8], kid: String? = nil) -> String {
        let header = JWTJSON.Header(alg: JWTAlgorithm.hs256, kid: kid, typ: "JWT")
        let payload = JWTJSON.Payload(
            sub: claims.subject, role: claims.role.rawValue,
            streamIds: claims.streamIds.map(JWTJSON.StreamIDClaim.init),
            iat: claims.issuedAt, exp: claims.expiresAt)
        let signingInput = Base64URL.encode(header.jsonBytes()) + "." + Base64URL.encode(payload.jsonBytes())
        let mac = crypto.hmacSHA256(key: key, message: Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(mac)
    }
}

/// JWS `alg` values (RFC 7518 §3.1).
enum JWTAlgorithm {
    static let hs256 = "HS256"
}

import PreviewCore
import PreviewCrypto

/// A token with any claims, signed with `secret` (HS256) by the product's own signer, as `streampreview token`
/// would sign it: for tokens that command will not make (expired ones, or ones signed with another secret).
func craftedToken(
    secret: String, sub: String, role: Role, streams: [Int64] = [], issuedAt: Int64, expiresAt: Int64
) -> String {
    let claims = TokenClaims(subject: sub, role: role, streamIds: streams, issuedAt: issuedAt, expiresAt: expiresAt)
    return JWTSigner(crypto: OpenSSLCrypto()).sign(claims, key: Array(secret.utf8))
}

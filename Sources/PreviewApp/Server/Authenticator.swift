import PreviewCore

/// Turns the `Authorization: Bearer` header into the caller's claims, and says what a
/// caller may do.
struct Authenticator: Sendable {
    let verifier: JWTVerifier
    /// Tokens seen lately, whose next use only has its times checked.
    let recentTokens = AuthenticatedTokens()

    /// The caller, or nil for a request without an Authorization header (anonymous).
    /// A header that is present but not a valid bearer token is 401.
    func optionalCaller(_ request: HTTPRequest, now: Int64) throws(APIError) -> TokenClaims? {
        guard let header = request.headers["Authorization"] else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, HTTPHeaders.sameName(String(parts[0]), "Bearer") else {
            throw APIError(.unauthenticated, "the Authorization header must be 'Bearer <token>'")
        }
        let token = parts[1].trimmingSpacesAndTabs()
        switch recentTokens.authenticate(token, with: verifier).flatMap({ verifier.check($0, now: now) }) {
        case .success(let claims): return claims
        case .failure(.expired): throw APIError(.unauthenticated, "the token has expired")
        case .failure(.notYetValid): throw APIError(.unauthenticated, "the token is not valid yet (iat or nbf)")
        case .failure(.lifetimeTooLong):
            throw APIError(.unauthenticated, "the token's lifetime (exp - iat) is longer than this server allows")
        case .failure: throw APIError(.unauthenticated, "the token is not valid")
        }
    }

    func caller(_ request: HTTPRequest, now: Int64) throws(APIError) -> TokenClaims {
        guard let claims = try optionalCaller(request, now: now) else {
            throw APIError(.unauthenticated, "send Authorization: Bearer <token>")
        }
        return claims
    }

    /// Uploading, committing and deleting a stream's preview: its streamer, or an admin.
    static func requireOwner(_ claims: TokenClaims, of streamId: Int64) throws(APIError) {
        switch claims.role {
        case .admin: return
        case .streamer where claims.streamIds.contains(streamId): return
        case .streamer: throw APIError(.forbidden, "this token does not own stream \(streamId)", target: "streamId")
        case .viewer: throw APIError(.forbidden, "viewer tokens cannot upload or remove previews")
        }
    }
}

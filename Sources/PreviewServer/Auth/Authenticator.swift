import PreviewCore

/// Turns the `Authorization: Bearer` header into the caller's claims, and says what a
/// caller may do.
package struct Authenticator: Sendable {
    /// The verifier in use, swapped when the identity provider's keys change.
    let keyRing: TokenKeyRing
    /// Tokens seen lately, whose next use only has its times checked.
    let recentTokens = AuthenticatedTokens()

    package init(keyRing: TokenKeyRing) {
        self.keyRing = keyRing
    }

    /// A fixed verifier (no provider keys loaded later).
    init(verifier: JWTVerifier) {
        keyRing = TokenKeyRing(verifier)
    }

    var verifier: JWTVerifier { keyRing.verifier }

    /// The caller, or nil for a request without an Authorization header (anonymous).
    /// A header that is present but not a valid bearer token is 401. A request whose
    /// `authentication` was read already gets that answer.
    func optionalCaller(_ request: HTTPRequest, now: Int64) throws(APIError) -> TokenClaims? {
        if let known = request.authentication { return try known.get() }
        return try verifiedCaller(request, now: now)
    }

    /// `optionalCaller`'s answer as a value, for the router to keep on the request.
    func authentication(of request: HTTPRequest, now: Int64) -> Result<TokenClaims?, APIError> {
        Result { () throws(APIError) -> TokenClaims? in try optionalCaller(request, now: now) }
    }

    /// The Authorization header read and its token verified.
    private func verifiedCaller(_ request: HTTPRequest, now: Int64) throws(APIError) -> TokenClaims? {
        guard let header = request.headers["Authorization"] else { return nil }
        guard let token = Self.bearerToken(header) else {
            throw APIError(.unauthenticated, "the Authorization header must be 'Bearer <token>'")
        }
        let verifier = keyRing.verifier
        switch recentTokens.authenticate(token, with: verifier).flatMap({ verifier.check($0, now: now) }) {
        case .success(let claims): return claims
        case .failure(.unknownKeyID(let kid)):
            keyRing.sawUnknownKeyID(kid)
            throw APIError(.unauthenticated, "the token is not valid")
        case .failure(.wrongIssuer): throw APIError(.unauthenticated, "the token's issuer (iss) is not accepted here")
        case .failure(.wrongAudience):
            throw APIError(.unauthenticated, "the token's audience (aud) does not name this service")
        case .failure(.expired): throw APIError(.unauthenticated, "the token has expired")
        case .failure(.notYetValid): throw APIError(.unauthenticated, "the token is not valid yet (iat or nbf)")
        case .failure(.lifetimeTooLong):
            throw APIError(.unauthenticated, "the token's lifetime (exp - iat) is longer than this server allows")
        case .failure(.invalidSubject):
            throw APIError(
                .unauthenticated,
                "the token's sub is empty, holds a control or bidirectional character, or (HS256) starts with "
                    + TokenSubject.providerPrefix)
        case .failure(.claimTooLarge("sub")):
            throw APIError(.unauthenticated, "the token's sub is longer than \(JWTVerifier.maxSubjectBytes) bytes")
        case .failure(.claimTooLarge(let claim)):
            throw APIError(
                .unauthenticated, "the token's \(claim) has more than \(JWTVerifier.maxStreamIDs) entries")
        case .failure: throw APIError(.unauthenticated, "the token is not valid")
        }
    }

    /// The token of `Bearer <token>` (scheme in any case, after optional spaces; the token
    /// without the spaces and tabs around it); nil for any other scheme or shape.
    static func bearerToken(_ header: String) -> String? {
        let bytes = header.utf8
        guard let schemeStart = bytes.firstIndex(where: { $0 != UInt8(ascii: " ") }),
            let space = bytes[schemeStart...].firstIndex(of: UInt8(ascii: " "))
        else { return nil }
        let rest = bytes.index(after: space)
        guard rest < bytes.endIndex, ASCII.equalIgnoringCase(bytes[schemeStart..<space], "Bearer".utf8) else {
            return nil
        }
        return header[rest...].trimmingSpacesAndTabs()
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

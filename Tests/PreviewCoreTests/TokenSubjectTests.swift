import PreviewCrypto
import Testing

@testable import PreviewCore

/// What a token's `sub` may hold, and the key a provider's subject is kept under.
@Suite struct TokenSubjectTests {
    let crypto = OpenSSLCrypto()
    let key = Array("default-secret".utf8)

    func verify(sub: String) -> Result<TokenClaims, TokenError> {
        var payload = JWTJSON.Payload()
        payload.sub = sub
        payload.role = "viewer"
        payload.streamIds = []
        payload.iat = 1_700_000_000
        payload.exp = 1_700_003_600
        let input =
            Base64URL.encode(Array(#"{"alg":"HS256"}"#.utf8)) + "." + Base64URL.encode(payload.jsonBytes())
        let token = input + "." + Base64URL.encode(crypto.hmacSHA256(key: key, message: Array(input.utf8)))
        return JWTVerifier(keys: JWTKeySet(defaultKey: key), crypto: crypto).verify(token, now: 1_700_000_100)
    }

    @Test(arguments: [
        "", "a\u{0}b", "tab\tin", "line\nbreak", "\u{1B}[31mred", "del\u{7F}", "c1\u{85}", "c1\u{9B}", "\u{2028}",
        "\u{2029}", "\u{202E}evil", "a\u{202A}", "\u{2066}x\u{2069}", "\u{200E}", "\u{200F}", "\u{61C}", "\u{FEFF}bom",
    ])
    func emptyOrHidingSubjectsAreRefused(sub: String) {
        #expect(!TokenSubject.isAcceptable(sub))
        #expect(verify(sub: sub) == .failure(.invalidSubject), "\(Array(sub.unicodeScalars))")
    }

    @Test(arguments: ["u", "idp-user", "auth0|abc", "Zoë", "用户", "a b", "IDP:x", "idp", "x idp:y"])
    func printableSubjectsAreAccepted(sub: String) throws {
        #expect(try verify(sub: sub).get().subject == sub)
    }

    @Test func anHS256SubjectInTheProvidersNamespaceIsRefused() {
        let providerKey = TokenSubject.providerKey(issuer: "https://idp.example.test/", subject: "u", crypto: crypto)
        #expect(TokenSubject.isAcceptable(providerKey))
        #expect(!TokenSubject.isAcceptableForHS256(providerKey))
        #expect(verify(sub: providerKey) == .failure(.invalidSubject))
        #expect(verify(sub: "idp:") == .failure(.invalidSubject))
    }

    @Test func aProviderSubjectIsKeyedByTheSHA256OfItsIssuer() {
        // printf '%s' 'https://idp.example.test/' | sha256sum
        #expect(
            TokenSubject.providerKey(issuer: "https://idp.example.test/", subject: "auth0|user-7", crypto: crypto)
                == "idp:" + Self.exampleIssuerDigest + ":auth0|user-7")
        let other = TokenSubject.providerKey(
            issuer: "https://idp.example.test", subject: "auth0|user-7", crypto: crypto)
        #expect(other.hasPrefix("idp:") && other != "idp:" + Self.exampleIssuerDigest + ":auth0|user-7")
        let longest = TokenSubject.providerKey(
            issuer: "https://idp.example.test/", subject: String(repeating: "s", count: JWTVerifier.maxSubjectBytes),
            crypto: crypto)
        #expect(longest.utf8.count == TokenSubject.maxKeyBytes)
        #expect(TokenSubject.maxKeyBytes == 324)
    }

    /// SHA-256 of `https://idp.example.test/`, in lowercase hex.
    static let exampleIssuerDigest = "18679709047f59176ce1eac4fc3e0c7c05ca682eba5ed72b929283cf4f4515d5"
}

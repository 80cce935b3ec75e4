import Foundation
import PreviewCrypto
import PreviewTestSupport
import Testing

@testable import PreviewCore

/// RS256, ES256 and EdDSA tokens from an identity provider, minted by PyJWT + cryptography
/// (`JWTOracle`), verified with the keys of the JWKS document PyJWT wrote.
@Suite struct JWKSVerifierTests {
    static let now: Int64 = 1_700_000_100
    static let issuer = "https://idp.example.test/"
    static let audience = "streampreview"

    static let otherIssuer = "https://other.example.test/"
    /// `TokenSubject.providerKey` of `sub` of `issuer`: `printf '%s' "$issuer" | sha256sum`.
    static let subject = "idp:18679709047f59176ce1eac4fc3e0c7c05ca682eba5ed72b929283cf4f4515d5:auth0|user-7"

    static func claims(_ extra: [String: OracleJSON] = [:], without removed: String? = nil) -> [String: OracleJSON] {
        var claims: [String: OracleJSON] = [
            "sub": "auth0|user-7", "iss": .string(issuer), "aud": .string(audience), "iat": .int(now - 100),
            "exp": .int(now + 3500), "role": "viewer",
        ]
        claims.merge(extra) { $1 }
        if let removed { claims[removed] = nil }
        return claims
    }

    /// Minted once for the suite: PyJWT's start and key generation take seconds.
    static let minted: Result<OracleAnswer, any Error> = Result {
        let keys = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-keys")
        return try JWTOracle.mint(
            keyDirectory: keys, jwks: ["rsa-1", "ec-1", "ed-1"],
            tokens: [
                "rs256": OracleToken(kid: "rsa-1", claims: claims()),
                "es256": OracleToken(
                    kid: "ec-1",
                    claims: claims([
                        "app_metadata": ["role": "streamer", "streams": ["42", 7]]
                    ])),
                "eddsa": OracleToken(kid: "ed-1", claims: claims(["aud": ["other", .string(audience)]])),
                "expired": OracleToken(
                    kid: "rsa-1", claims: claims(["iat": .int(now - 7200), "exp": .int(now - 3600)])),
                "notYet": OracleToken(kid: "ec-1", claims: claims(["nbf": .int(now + 600)])),
                "wrongIssuer": OracleToken(kid: "ed-1", claims: claims(["iss": "https://evil.example.test/"])),
                "wrongAudience": OracleToken(kid: "rsa-1", claims: claims(["aud": ["other", "another"]])),
                "none": OracleToken(kid: "rsa-1", claims: claims(), mode: "none"),
                "confusion": OracleToken(kid: "rsa-1", claims: claims(), mode: "hmac-with-public-key"),
                "pathKid": OracleToken(kid: "rsa-1", claims: claims(), headers: ["kid": "../rsa-1"]),
                "ecKeyNamedAsRSA": OracleToken(kid: "ec-1", claims: claims(), headers: ["kid": "rsa-1"]),
                "rsaSignedWithRS256ForECKey": OracleToken(kid: "rsa-1", claims: claims(), headers: ["kid": "ec-1"]),
                "unknownKid": OracleToken(kid: "rsa-1", claims: claims(), headers: ["kid": "rsa-9"]),
                "noRole": OracleToken(kid: "ed-1", claims: claims(["role": .array([])])),
                "accessTokenType": OracleToken(kid: "rsa-1", claims: claims(), headers: ["typ": "at+jwt"]),
                "otherType": OracleToken(kid: "rsa-1", claims: claims(), headers: ["typ": "JWE"]),
                "es256HighS": OracleToken(kid: "ec-1", claims: claims(), mode: "es256-high-s"),
                "otherIssuer": OracleToken(kid: "ed-1", claims: claims(["iss": .string(otherIssuer)])),
                "noIssuer": OracleToken(kid: "ed-1", claims: claims(without: "iss")),
                "emptySub": OracleToken(kid: "ed-1", claims: claims(["sub": ""])),
                "bidiSub": OracleToken(kid: "ed-1", claims: claims(["sub": "user\u{202E}7"])),
                "controlSub": OracleToken(kid: "ed-1", claims: claims(["sub": "user\u{7}7"])),
            ])
    }

    let crypto = OpenSSLCrypto()
    let hmacSecret = Array("an-hs256-secret-of-32-bytes-or-more".utf8)

    /// Our issuer and audience, the default claim names.
    static var scoped: IdentityTokenPolicy {
        var policy = IdentityTokenPolicy()
        policy.issuers = [issuer]
        policy.audiences = [audience]
        return policy
    }

    func verifier(_ policy: IdentityTokenPolicy = scoped) throws -> JWTVerifier {
        let set = try JWKSet.parse(try Self.minted.get().jwks)
        return JWTVerifier(
            keys: JWTKeySet(defaultKey: hmacSecret), publicKeys: JWTPublicKeys(set, generation: 1, crypto: crypto),
            identity: policy, crypto: crypto)
    }

    func token(_ name: String) throws -> String { try #require(try Self.minted.get().tokens[name]) }

    func failure(_ result: Result<TokenClaims, TokenError>) -> TokenError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    @Test func pyJWTTokensOfEachAlgorithmVerify() throws {
        let verifier = try verifier()
        let rs = try verifier.verify(token("rs256"), now: Self.now).get()
        #expect(
            rs
                == TokenClaims(
                    subject: Self.subject, role: .viewer, streamIds: [], issuedAt: Self.now - 100,
                    expiresAt: Self.now + 3500))
        #expect(try verifier.verify(token("eddsa"), now: Self.now).get().role == .viewer)
        #expect(try verifier.verify(token("es256"), now: Self.now).get().subject == Self.subject)
    }

    @Test func nestedClaimPathsMapRoleAndStreams() throws {
        var policy = Self.scoped
        policy.roleClaim = try #require(ClaimPath("app_metadata.role"))
        policy.streamsClaim = try #require(ClaimPath("app_metadata.streams"))
        let claims = try verifier(policy).verify(token("es256"), now: Self.now).get()
        #expect(claims.role == .streamer)
        #expect(claims.streamIds == [42, 7])
    }

    @Test func aTokenWithoutARoleTakesTheDefaultRoleOnlyWhenOneIsSet() throws {
        var policy = Self.scoped
        #expect(failure(try verifier(policy).verify(token("noRole"), now: Self.now)) == .invalidRole)
        policy.defaultRole = .viewer
        #expect(try verifier(policy).verify(token("noRole"), now: Self.now).get().role == .viewer)
        policy.roleClaim = try #require(ClaimPath("app_metadata.role"))
        #expect(try verifier(policy).verify(token("rs256"), now: Self.now).get().role == .viewer)
        policy.defaultRole = nil
        #expect(
            failure(try verifier(policy).verify(token("rs256"), now: Self.now)) == .missingClaim("app_metadata.role"))
    }

    @Test func theAccessTokenTypeOfRFC9068IsAcceptedAndOtherTypesAreNot() throws {
        #expect(try verifier().verify(token("accessTokenType"), now: Self.now).get().role == .viewer)
        #expect(failure(try verifier().verify(token("otherType"), now: Self.now)) == .malformed)
    }

    @Test func expiredAndNotYetValidTokensAreRefused() throws {
        #expect(failure(try verifier().verify(token("expired"), now: Self.now)) == .expired)
        #expect(failure(try verifier().verify(token("notYet"), now: Self.now)) == .notYetValid)
    }

    @Test func aWrongIssuerIsRefused() throws {
        #expect(failure(try verifier().verify(token("wrongIssuer"), now: Self.now)) == .wrongIssuer)
    }

    @Test func anAudienceWithoutOursIsRefused() throws {
        #expect(failure(try verifier().verify(token("wrongAudience"), now: Self.now)) == .wrongAudience)
    }

    @Test func withoutIssuerOrAudienceEveryTokenIsRefusedUnlessTheCheckIsWaived() throws {
        var policy = IdentityTokenPolicy()
        #expect(failure(try verifier(policy).verify(token("rs256"), now: Self.now)) == .wrongIssuer)
        policy.issuers = [Self.issuer]
        #expect(failure(try verifier(policy).verify(token("wrongAudience"), now: Self.now)) == .wrongAudience)
        policy.acceptsAnyAudience = true
        #expect(try verifier(policy).verify(token("wrongAudience"), now: Self.now).get().role == .viewer)
        policy.issuers = []
        policy.acceptsAnyIssuer = true
        #expect(try verifier(policy).verify(token("wrongIssuer"), now: Self.now).get().role == .viewer)
    }

    @Test func aProviderTokenWithoutAnIssuerIsRefusedEvenWhereAnyIssuerIsAccepted() throws {
        var policy = IdentityTokenPolicy()
        policy.acceptsAnyIssuer = true
        policy.acceptsAnyAudience = true
        #expect(failure(try verifier(policy).verify(token("noIssuer"), now: Self.now)) == .missingClaim("iss"))
    }

    @Test func aProviderSubjectIsKeyedByItsIssuerSoNoOtherIssuerOrHS256TokenShares() throws {
        var policy = Self.scoped
        policy.issuers = [Self.issuer, Self.otherIssuer]
        let verifier = try verifier(policy)
        let ours = try verifier.verify(token("rs256"), now: Self.now).get().subject
        let theirs = try verifier.verify(token("otherIssuer"), now: Self.now).get().subject
        let hs256 = try verifier.verify(
            JWTSigner(crypto: crypto).sign(
                TokenClaims(
                    subject: "auth0|user-7", role: .viewer, streamIds: [], issuedAt: Self.now, expiresAt: Self.now + 60),
                key: hmacSecret), now: Self.now
        ).get().subject
        #expect(ours == Self.subject)
        #expect(theirs == TokenSubject.providerKey(issuer: Self.otherIssuer, subject: "auth0|user-7", crypto: crypto))
        #expect(hs256 == "auth0|user-7")
        #expect(Set([ours, theirs, hs256]).count == 3)
    }

    @Test(arguments: ["emptySub", "bidiSub", "controlSub"])
    func aProviderSubjectThatIsEmptyOrHidesCharactersIsRefused(name: String) throws {
        #expect(failure(try verifier().verify(token(name), now: Self.now)) == .invalidSubject)
    }

    @Test func anES256SignatureWithAHighSIsTheSameTokenButNeverTheCanonicalOne() throws {
        let parts = try token("es256HighS").split(separator: ".")
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(!ES256Signature.hasLowS(signature))
        let set = try JWKSet.parse(try Self.minted.get().jwks)
        let key = try crypto.signatureKey(try #require(set.key("ec-1")))
        #expect(key.verify(signature, of: Array((parts[0] + "." + parts[1]).utf8)), "OpenSSL alone accepts both forms")
        let twin = try verifier().authenticate(token("es256HighS")).get()
        #expect(!twin.isCanonical)
        #expect(try verifier().verify(token("es256HighS"), now: Self.now).get().subject.hasPrefix("idp:"))
        let es256 = try #require(Base64URL.decode(try token("es256").split(separator: ".")[2]))
        #expect(ES256Signature.hasLowS(es256))
        #expect(try verifier().authenticate(token("es256")).get().isCanonical)
    }

    @Test func algNoneIsRefusedBeforeAnyKeyIsLookedUp() throws {
        #expect(failure(try verifier().verify(token("none"), now: Self.now)) == .unsupportedAlgorithm("none"))
    }

    @Test func anHS256TokenKeyedWithTheProvidersPublicKeyIsRefused() throws {
        #expect(failure(try verifier().verify(token("confusion"), now: Self.now)) == .algorithmMismatch("HS256"))
    }

    @Test func aKidNamingAKeyOfAnotherAlgorithmIsRefused() throws {
        #expect(failure(try verifier().verify(token("ecKeyNamedAsRSA"), now: Self.now)) == .algorithmMismatch("ES256"))
        #expect(
            failure(try verifier().verify(token("rsaSignedWithRS256ForECKey"), now: Self.now))
                == .algorithmMismatch("RS256"))
    }

    @Test func aKidWithPathCharactersIsRefusedAsMalformed() throws {
        #expect(failure(try verifier().verify(token("pathKid"), now: Self.now)) == .malformed)
    }

    @Test func anUnknownKidIsReportedAsSuch() throws {
        #expect(failure(try verifier().verify(token("unknownKid"), now: Self.now)) == .unknownKeyID("rsa-9"))
    }

    @Test func aKeyThatLeftTheSetNoLongerVerifies() throws {
        let full = try verifier()
        let set = try JWKSet.parse(try Self.minted.get().jwks)
        let rotated = full.with(
            publicKeys: JWTPublicKeys(
                JWKSet(keys: set.keys.filter { $0.kid != "rsa-1" }), generation: 2, crypto: crypto))
        #expect(try full.verify(token("rs256"), now: Self.now).get().role == .viewer)
        #expect(failure(rotated.verify(try token("rs256"), now: Self.now)) == .unknownKeyID("rsa-1"))
        #expect(try rotated.verify(token("eddsa"), now: Self.now).get().role == .viewer)
    }

    @Test func aTamperedSignatureOfEachAlgorithmIsRefused() throws {
        for name in ["rs256", "es256", "eddsa"] {
            var text = Array(try token(name).utf8)
            let index = text.count - 3
            text[index] = text[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            #expect(
                failure(try verifier().verify(String(decoding: text, as: UTF8.self), now: Self.now)) == .badSignature)
        }
    }

    @Test func anES256SignatureOfTheWrongLengthIsRefused() throws {
        let parts = try token("es256").split(separator: ".")
        let signature = try #require(Base64URL.decode(parts[2]))
        let longer = parts[0] + "." + parts[1] + "." + Base64URL.encode([0] + signature)
        #expect(failure(try verifier().verify(String(longer), now: Self.now)) == .badSignature)
    }

    @Test func ourHS256TokensStillVerifyBesideTheProvidersKeys() throws {
        let claims = TokenClaims(
            subject: "u", role: .admin, streamIds: [1], issuedAt: Self.now, expiresAt: Self.now + 60)
        let own = JWTSigner(crypto: crypto).sign(claims, key: hmacSecret)
        #expect(try verifier().verify(own, now: Self.now).get() == claims)
    }

    @Test func publicKeyAlgorithmsAreUnknownWithoutAKeySet() throws {
        let plain = JWTVerifier(keys: JWTKeySet(defaultKey: hmacSecret), crypto: crypto)
        #expect(failure(plain.verify(try token("rs256"), now: Self.now)) == .unsupportedAlgorithm("RS256"))
    }

    @Test func aP256PointOffTheCurveIsRefusedByOpenSSL() throws {
        let set = try JWKSet.parse(try Self.minted.get().jwks)
        func coordinates(_ material: JWK.Material?) -> ([UInt8], [UInt8])? {
            if case .p256(let x, let y)? = material { return (x, y) }
            return nil
        }
        let (x, y) = try #require(coordinates(set.key("ec-1")?.material))
        #expect(throws: (any Error).self) { try crypto.signatureKey(JWK(kid: "bad", material: .p256(x: x, y: x))) }
        _ = try crypto.signatureKey(JWK(kid: "good", material: .p256(x: x, y: y)))
        let keys = JWTPublicKeys(
            JWKSet(keys: [JWK(kid: "bad", material: .p256(x: x, y: x))]), generation: 1, crypto: crypto)
        #expect(keys.keys.isEmpty)
        #expect(keys.refused.count == 1)
    }

    @Test func anRSAKeyUnder2048BitsIsLeftOutOfTheSet() throws {
        let keys = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-weak")
        let answer = try JWTOracle.mint(keyDirectory: keys, jwks: ["rsa1024-1", "ed-1"], tokens: [:])
        let set = try JWKSet.parse(answer.jwks)
        #expect(set.keys.map(\.kid) == ["ed-1"])
        #expect(set.ignored == ["key 0 (kid 'rsa1024-1'): RSA modulus of 1024 bits (2048 to 8192 accepted)"])
    }
}

import PreviewCrypto
import Testing

@testable import PreviewApp
@testable import PreviewCore
@testable import PreviewServer

/// The tokens a process keeps after verifying them: only verified ones, and their times are
/// checked again at every use.
@Suite struct AuthenticatedTokensTests {
    let key = Array("token-secret".utf8)
    let verifier: JWTVerifier

    init() {
        verifier = JWTVerifier(keys: JWTKeySet(defaultKey: key), crypto: OpenSSLCrypto())
    }

    func token(expiresAt: Int64, subject: String = "ann") -> String {
        JWTSigner(crypto: OpenSSLCrypto()).sign(
            TokenClaims(subject: subject, role: .viewer, streamIds: [], issuedAt: 1_000, expiresAt: expiresAt), key: key
        )
    }

    @Test func aKeptTokenStillExpiresAtItsTime() throws {
        let tokens = AuthenticatedTokens()
        let signed = token(expiresAt: 2_000)
        let first = try tokens.authenticate(signed, with: verifier).get()
        #expect(verifier.check(first, now: 1_500) == .success(first.claims))
        #expect(tokens.count == 1)
        let again = try tokens.authenticate(signed, with: verifier).get()
        #expect(again.claims == first.claims && tokens.count == 1)
        #expect(verifier.check(again, now: 2_030) == .failure(.expired), "exp + 30 s of leeway")
    }

    @Test func onlyVerifiedTokensAreKeptAndATamperedOneIsRefusedAfterTheGenuineOne() {
        let tokens = AuthenticatedTokens()
        let signed = token(expiresAt: 2_000)
        _ = tokens.authenticate(signed, with: verifier)
        let lastByte = signed.utf8.last == UInt8(ascii: "A") ? "B" : "A"
        let tampered = String(signed.dropLast()) + lastByte
        #expect(throws: TokenError.badSignature) { try tokens.authenticate(tampered, with: verifier).get() }
        let otherKey = JWTSigner(crypto: OpenSSLCrypto()).sign(
            TokenClaims(subject: "ann", role: .admin, streamIds: [], issuedAt: 1_000, expiresAt: 2_000),
            key: Array("another-secret".utf8))
        #expect(throws: TokenError.badSignature) { try tokens.authenticate(otherKey, with: verifier).get() }
        #expect(tokens.count == 1)
    }

    @Test func theBytesHeldStayWithinTheBudget() {
        let tokens = AuthenticatedTokens(budgetBytes: 16 * 1024)
        for number in 0..<200 {
            _ = tokens.authenticate(token(expiresAt: 2_000, subject: "v\(number)"), with: verifier)
            #expect(tokens.heldBytes <= 16 * 1024)
        }
        #expect(tokens.count > 0)
    }

    @Test func longTokensAreHeldByTheirBytesNotByTheirCount() {
        // Tokens with a 255-byte subject cost about 900 bytes each: 8 shards of 2 KiB hold at
        // most 2 apiece, where short ones fit several.
        let tokens = AuthenticatedTokens(budgetBytes: 16 * 1024)
        for number in 0..<200 {
            let subject = "\(number + 100)" + String(repeating: "s", count: 252)
            _ = tokens.authenticate(token(expiresAt: 2_000, subject: subject), with: verifier)
            #expect(tokens.heldBytes <= 16 * 1024)
        }
        #expect(tokens.count <= 16)
        #expect(tokens.count > 0)
    }
}

/// A provider key that accepts exactly one signature, for tokens built by hand.
private struct AcceptingKey: SignatureKey {
    func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool { signature == [1, 2, 3] }
}

@Suite struct AuthenticatedTokensRotationTests {
    @Test func aHeldTokenWhoseKeyWasRotatedOutIsRefused() throws {
        let header = #"{"alg":"EdDSA","kid":"k1","typ":"JWT"}"#
        let payload = #"{"sub":"ann","iss":"https://idp.test/","aud":"api","role":"viewer","iat":1000,"exp":2000}"#
        let token =
            Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8)) + "."
            + Base64URL.encode([1, 2, 3])
        var identity = IdentityTokenPolicy()
        identity.issuers = ["https://idp.test/"]
        identity.audiences = ["api"]
        let crypto = OpenSSLCrypto()
        let base = JWTVerifier(
            keys: JWTKeySet(defaultKey: Array("token-secret".utf8)), identity: identity, crypto: crypto)
        let withKey = base.with(
            publicKeys: JWTPublicKeys(
                generation: 1,
                keys: [
                    "k1": .init(algorithm: .edDSA, key: AcceptingKey()),
                    "k2": .init(algorithm: .edDSA, key: AcceptingKey()),
                ]))
        let rotated = base.with(
            publicKeys: JWTPublicKeys(generation: 2, keys: ["k2": .init(algorithm: .edDSA, key: AcceptingKey())]))
        let tokens = AuthenticatedTokens()
        #expect(
            try tokens.authenticate(token, with: withKey).get().claims.subject
                == TokenSubject.providerKey(issuer: "https://idp.test/", subject: "ann", crypto: crypto))
        #expect(tokens.count == 1)
        #expect(throws: TokenError.unknownKeyID("k1")) { try tokens.authenticate(token, with: rotated).get() }
        #expect(tokens.count == 0)
    }
}

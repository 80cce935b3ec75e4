import Testing

@testable import PreviewCore

/// Reading JWKS documents, kid rules, claim paths and the issuer/audience checks (no crypto).
@Suite struct JWKSetTests {
    static let modulus2048 = Base64URL.encode([0x80] + [UInt8](repeating: 0x01, count: 255))
    static let modulus2040 = Base64URL.encode([0x80] + [UInt8](repeating: 0x01, count: 254))
    static let coordinate = Base64URL.encode([UInt8](repeating: 7, count: 32))

    static func rsa(_ kid: String = "r1", extra: String = "", n: String = modulus2048) -> String {
        #"{"kty":"RSA","kid":"\#(kid)","n":"\#(n)","e":"AQAB"\#(extra)}"#
    }
    static let ec = #"{"kty":"EC","crv":"P-256","kid":"e1","x":"\#(coordinate)","y":"\#(coordinate)"}"#
    static let ed = #"{"kty":"OKP","crv":"Ed25519","kid":"d1","x":"\#(coordinate)","alg":"EdDSA"}"#

    func parse(_ keys: String...) throws -> JWKSet {
        try JWKSet.parse(Array(#"{"keys":[\#(keys.joined(separator: ","))]}"#.utf8))
    }

    func ignored(_ key: String) throws -> [String] { try parse(key, Self.ed).ignored }

    @Test func eachKeyTypeGivesItsOwnAlgorithm() throws {
        let set = try parse(Self.rsa(), Self.ec, Self.ed)
        #expect(set.keys.map(\.algorithm) == [.rs256, .es256, .edDSA])
        #expect(set.ignored.isEmpty)
    }

    @Test func keysNotForSignatureAreLeftOut() throws {
        #expect(try ignored(Self.rsa(extra: #","use":"enc""#)) == ["key 0 (kid 'r1'): use is 'enc', not 'sig'"])
        #expect(
            try ignored(Self.rsa(extra: #","key_ops":["encrypt"]"#)) == [
                "key 0 (kid 'r1'): key_ops does not list verify"
            ])
        #expect(try parse(Self.rsa(extra: #","use":"sig","key_ops":["verify"]"#)).keys.count == 1)
    }

    @Test func aKeyWhoseAlgIsNotItsTypesIsLeftOut() throws {
        #expect(try ignored(Self.rsa(extra: #","alg":"HS256""#)) == ["key 0 (kid 'r1'): RSA key for alg HS256"])
        #expect(try ignored(Self.rsa(extra: #","alg":"RS512""#)).count == 1)
    }

    @Test func rsaUnder2048BitsIsLeftOut() throws {
        #expect(
            try ignored(Self.rsa(n: Self.modulus2040)) == [
                "key 0 (kid 'r1'): RSA modulus of 2040 bits (2048 to 8192 accepted)"
            ])
    }

    @Test func onlyP256AndEd25519CurvesAreRead() throws {
        let p384 = Self.ec.replacingOccurrences(of: "P-256", with: "P-384")
        #expect(try ignored(p384) == ["key 0 (kid 'e1'): EC curve P-384; only P-256 is accepted"])
        let x448 = Self.ed.replacingOccurrences(of: "Ed25519", with: "Ed448")
        #expect(try parse(Self.rsa(), x448).ignored == ["key 1 (kid 'd1'): OKP curve Ed448; only Ed25519 is accepted"])
        let octet = #"{"kty":"oct","kid":"h1","k":"c2VjcmV0"}"#
        #expect(try ignored(octet) == ["key 0 (kid 'h1'): kty oct is not RSA, EC or OKP"])
    }

    @Test func privateKeyMaterialIsLeftOut() throws {
        #expect(try ignored(Self.rsa(extra: #","d":"AQAB""#)) == ["key 0 (kid 'r1'): holds private key material (d)"])
    }

    @Test func keysWithoutAValidKidAreLeftOut() throws {
        #expect(try ignored(Self.rsa("../etc/passwd")).count == 1)
        #expect(try ignored(#"{"kty":"RSA","n":"\#(Self.modulus2048)","e":"AQAB"}"#).count == 1)
    }

    @Test func documentsThatAreNotKeySetsAreRefused() throws {
        for text in ["not json", "[]", #"{"keys":{}}"#, #"{"keys":[]}"#, #"{"keys":[1]}"#, #"{"keys":[],"keys":[]}"#] {
            #expect(throws: JWTKeySet.ConfigurationError.self) { try JWKSet.parse(Array(text.utf8)) }
        }
        #expect(throws: JWTKeySet.ConfigurationError.self) { try parse(Self.rsa(), Self.rsa()) }
    }

    @Test func documentsBeyondTheBoundsAreRefused() throws {
        let many = [String](repeating: Self.ed, count: JWKSet.maxKeys + 1).joined(separator: ",")
        #expect(throws: JWTKeySet.ConfigurationError.self) { try JWKSet.parse(Array(#"{"keys":[\#(many)]}"#.utf8)) }
        let padding = String(repeating: " ", count: JWKSet.maxDocumentBytes)
        #expect(throws: JWTKeySet.ConfigurationError.self) {
            try JWKSet.parse(Array(#"{"keys":[\#(Self.ed)]}\#(padding)"#.utf8))
        }
    }

    @Test(arguments: [
        ("k1", true), ("2024-01_rsa.A", true), ("", false), ("a/b", false), (#"a\b"#, false), ("a..b", false),
        ("a b", false), ("ké", false), (String(repeating: "k", count: 129), false),
        (String(repeating: "k", count: 128), true),
    ])
    func kidRules(kid: String, valid: Bool) {
        #expect(JWTKeyID.isValid(kid) == valid)
    }

    @Test func claimPathsFollowNestedObjectsAndPreferAWholeName() throws {
        let object = try #require(
            JSONObjectReader(
                Array(#"{"app_metadata":{"role":"admin"},"https://x.test/role":"viewer","a":{"b":1}}"#.utf8)))
        #expect(try #require(ClaimPath("app_metadata.role")).value(in: object) == .string("admin"))
        #expect(try #require(ClaimPath("https://x.test/role")).value(in: object) == .string("viewer"))
        #expect(try #require(ClaimPath("a.b.c")).value(in: object) == nil)
        #expect(try #require(ClaimPath("missing.role")).value(in: object) == nil)
        #expect(ClaimPath("a..b") == nil)
        #expect(ClaimPath(".a") == nil)
        #expect(ClaimPath("") == nil)
    }

    @Test func rolesComeFromAStringOrAnArrayWhichGivesAdminOnlyByTheNamedRole() {
        var policy = IdentityTokenPolicy()
        #expect(policy.role(.string("streamer")) == .success(.streamer))
        #expect(policy.role(.string("admin")) == .success(.admin))
        #expect(policy.role(.string("owner")) == .failure(.invalidRole))
        #expect(
            policy.role(.array([.string("offline_access"), .string("viewer"), .string("admin")])) == .success(.viewer),
            "an admin anywhere in a provider's list of roles is not ours")
        #expect(policy.role(.array([.string("viewer"), .string("streamer")])) == .success(.streamer))
        #expect(policy.role(.array([.string("admin")])) == .failure(.invalidRole))
        #expect(policy.role(.array([.string("offline_access")])) == .failure(.invalidRole))
        #expect(policy.role(.number("1")) == .failure(.malformed))
        #expect(policy.role(nil) == .failure(.missingClaim("role")))
        policy.defaultRole = .viewer
        #expect(policy.role(nil) == .success(.viewer))
        #expect(policy.role(.array([.string("offline_access")])) == .success(.viewer))
        #expect(policy.role(.array([.string("admin")])) == .success(.viewer))
        policy.adminRoleName = "streampreview-admin"
        #expect(policy.role(.array([.string("viewer"), .string("streampreview-admin")])) == .success(.admin))
        #expect(policy.role(.string("streampreview-admin")) == .success(.admin))
        #expect(policy.role(.array([.string("admin"), .string("streamer")])) == .success(.streamer))
    }

    @Test func issuerAndAudienceAreRequiredUnlessExplicitlyWaived() {
        var policy = IdentityTokenPolicy()
        #expect(policy.check(issuer: "https://a.test/", audience: ["api"]) == .wrongIssuer)
        policy.acceptsAnyIssuer = true
        #expect(policy.check(issuer: "https://a.test/", audience: ["api"]) == .wrongAudience)
        policy.acceptsAnyAudience = true
        #expect(policy.check(issuer: "https://a.test/", audience: ["api"]) == nil)
        #expect(policy.check(issuer: nil, audience: nil) == nil)
        policy = IdentityTokenPolicy()
        policy.issuers = ["https://a.test/", "https://b.test/"]
        policy.audiences = ["api"]
        #expect(policy.check(issuer: "https://b.test/", audience: ["x", "api"]) == nil)
        #expect(policy.check(issuer: "https://b.test", audience: ["api"]) == .wrongIssuer)
        #expect(policy.check(issuer: nil, audience: ["api"]) == .wrongIssuer)
        #expect(policy.check(issuer: "https://a.test/", audience: ["x"]) == .wrongAudience)
        #expect(policy.check(issuer: "https://a.test/", audience: nil) == .wrongAudience)
    }
}

import PreviewCrypto
import Testing

@testable import PreviewCore

/// HS256 bearer tokens. Reference MACs were computed outside Swift with
/// `printf '%s' "$header.$payload" | openssl dgst -sha256 -hmac KEY -binary | base64url`.
@Suite struct JWTTests {
    let crypto = OpenSSLCrypto()
    let defaultKey = Array("default-secret".utf8)
    let rotatedKey = Array("k-2024-01-secret".utf8)
    let now: Int64 = 1_700_000_100

    var verifier: JWTVerifier {
        JWTVerifier(keys: JWTKeySet(defaultKey: defaultKey, keys: ["2024-01": rotatedKey]), crypto: crypto)
    }

    var claims: TokenClaims {
        TokenClaims(
            subject: "user-7", role: .streamer, streamIds: [42, 9_007_199_254_740_993], issuedAt: 1_700_000_000,
            expiresAt: 1_700_003_600)
    }

    /// A token with exactly these header and payload bytes, MACed with `key`.
    func token(header: String = #"{"alg":"HS256","typ":"JWT"}"#, payload: String, key: [UInt8]? = nil) -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        return input + "." + Base64URL.encode(crypto.hmacSHA256(key: key ?? defaultKey, message: Array(input.utf8)))
    }

    func failure(_ result: Result<TokenClaims, TokenError>) -> TokenError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    // MARK: references

    @Test func signingGivesTheBytesComputedWithOpenSSL() throws {
        let signed = JWTSigner(crypto: crypto).sign(claims, key: rotatedKey, kid: "2024-01")
        #expect(
            signed == "eyJhbGciOiJIUzI1NiIsImtpZCI6IjIwMjQtMDEiLCJ0eXAiOiJKV1QifQ"
                + ".eyJleHAiOjE3MDAwMDM2MDAsImlhdCI6MTcwMDAwMDAwMCwicm9sZSI6InN0cmVhbWVyIiwic3RyZWFtX2lkcyI6WyI0MiIsIjkwMDcxOTkyNTQ3NDA5OTMiXSwic3ViIjoidXNlci03In0"
                + "._bSqXvcU2hnAJaZPjKMHJiu_qQb0i1ibdS7AW1jdvv0")
        #expect(try verifier.verify(signed, now: now).get() == claims)
    }

    @Test func aHandBuiltTokenWithNumericAndStringStreamIDsVerifies() throws {
        let reference =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJzdWIiOiJ1MSIsInJvbGUiOiJ2aWV3ZXIiLCJzdHJlYW1faWRzIjpbNDIsIjQzIl0sImlhdCI6MTcwMDAwMDAwMCwiZXhwIjoxNzAwMDAzNjAwfQ"
            + ".xYpT3Zsnzrwjz9EpnHLibvkp9a5JFA6lEBek3zPOPxk"
        #expect(
            try verifier.verify(reference, now: now).get()
                == TokenClaims(
                    subject: "u1", role: .viewer, streamIds: [42, 43], issuedAt: 1_700_000_000, expiresAt: 1_700_003_600
                ))
    }

    @Test func theJWTIOExampleTokenPassesTheMACAndThenLacksOurClaims() {
        let example =
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
            + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
            + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
        let jwtIO = JWTVerifier(keys: JWTKeySet(defaultKey: Array("your-256-bit-secret".utf8)), crypto: crypto)
        #expect(failure(jwtIO.verify(example, now: 1_516_239_022)) == .missingClaim("role"))
        #expect(failure(verifier.verify(example, now: 1_516_239_022)) == .badSignature)
    }

    // MARK: round trips and keys

    @Test(arguments: Role.allCases)
    func everyRoleRoundTrips(role: Role) throws {
        var claims = claims
        claims.role = role
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(try verifier.verify(signed, now: now).get() == claims)
    }

    @Test func anEmptyStreamListRoundTrips() throws {
        var claims = claims
        claims.streamIds = []
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(try verifier.verify(signed, now: now).get().streamIds == [])
    }

    @Test func theKidSelectsTheKey() {
        let signer = JWTSigner(crypto: crypto)
        #expect(failure(verifier.verify(signer.sign(claims, key: rotatedKey, kid: "2024-01"), now: now)) == nil)
        #expect(failure(verifier.verify(signer.sign(claims, key: rotatedKey), now: now)) == .badSignature)
        #expect(
            failure(verifier.verify(signer.sign(claims, key: defaultKey, kid: "2024-01"), now: now)) == .badSignature)
        #expect(
            failure(verifier.verify(signer.sign(claims, key: rotatedKey, kid: "2023-12"), now: now))
                == .unknownKeyID("2023-12"))
    }

    @Test func aWrongKeyFailsTheSignature() {
        let signed = JWTSigner(crypto: crypto).sign(claims, key: Array("other".utf8))
        #expect(failure(verifier.verify(signed, now: now)) == .badSignature)
    }

    // MARK: algorithms and tampering

    @Test func algNoneIsRejectedEvenWithAnEmptySignature() {
        let header = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8))
        let payload = JWTSigner(crypto: crypto).sign(claims, key: defaultKey).split(separator: ".")[1]
        #expect(failure(verifier.verify("\(header).\(payload).", now: now)) == .unsupportedAlgorithm("none"))
    }

    @Test(arguments: ["RS256", "ES256", "HS384", "HS512", "hs256", "PS256"])
    func everyAlgorithmButHS256IsUnsupported(alg: String) {
        let signed = token(header: #"{"alg":"\#(alg)","typ":"JWT"}"#, payload: "{}")
        #expect(failure(verifier.verify(signed, now: now)) == .unsupportedAlgorithm(alg))
    }

    @Test func aHeaderWithoutAlgOrWithAnotherTypIsMalformed() {
        #expect(failure(verifier.verify(token(header: #"{"typ":"JWT"}"#, payload: "{}"), now: now)) == .malformed)
        #expect(
            failure(verifier.verify(token(header: #"{"alg":"HS256","typ":"JWS"}"#, payload: "{}"), now: now))
                == .malformed)
    }

    @Test func aTamperedPayloadFailsTheSignature() {
        let parts = JWTSigner(crypto: crypto).sign(claims, key: defaultKey).split(separator: ".")
        var payload = claims
        payload.role = .admin
        let forged = JWTSigner(crypto: crypto).sign(payload, key: Array("attacker".utf8)).split(separator: ".")[1]
        #expect(failure(verifier.verify("\(parts[0]).\(forged).\(parts[2])", now: now)) == .badSignature)
    }

    @Test(arguments: [
        "", "a.b", "a.b.c.d", "..", "eyJhbGciOiJIUzI1NiJ9..sig", "not base64!.x.y",
    ])
    func tokensWithoutThreeBase64URLPartsAreMalformed(text: String) {
        #expect(failure(verifier.verify(text, now: now)) == .malformed)
    }

    @Test func paddingOrStandardBase64CharactersAreMalformed() {
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        let parts = signed.split(separator: ".").map(String.init)
        let mangled = [
            signed + "=",
            parts[0] + "=." + parts[1] + "." + parts[2],
            signed.replacingFirst("_", with: "/"),
            signed.replacingFirst("-", with: "+"),
            " " + signed,
        ]
        for text in mangled where text != signed {
            #expect(failure(verifier.verify(text, now: now)) == .malformed, "\(text)")
        }
        #expect(failure(verifier.verify(String(repeating: "a", count: 9000), now: now)) == .malformed)
    }

    @Test func aPayloadThatIsNotAJSONObjectIsMalformedAfterTheMAC() {
        #expect(failure(verifier.verify(token(payload: "[1]"), now: now)) == .malformed)
        #expect(failure(verifier.verify(token(payload: "{"), now: now)) == .malformed)
    }

    // MARK: claims

    @Test(arguments: ["sub", "role", "stream_ids", "iat", "exp"])
    func eachMissingClaimIsNamed(name: String) {
        let fields = [
            "sub": #""u1""#, "role": #""viewer""#, "stream_ids": "[1]", "iat": "1700000000", "exp": "1700003600",
        ]
        let payload =
            "{" + fields.filter { $0.key != name }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",") + "}"
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .missingClaim(name))
        let withNull = payload.dropLast() + ",\"\(name)\":null}"
        #expect(failure(verifier.verify(token(payload: String(withNull)), now: now)) == .missingClaim(name))
    }

    @Test func anUnknownRoleIsInvalid() {
        let payload = #"{"sub":"u","role":"superuser","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .invalidRole)
    }

    @Test(arguments: [
        #"["abc"]"#, #"["-5"]"#, "[-5]", "[0]", "[1.5]", #"["1e3"]"#, "[9223372036854775808]", "1", "[null]",
        #"["007"]"#, "[007]", #"["0"]"#,
    ])
    func invalidStreamIDsAreMalformed(streamIds: String) {
        let payload = #"{"sub":"u","role":"viewer","stream_ids":"# + streamIds + #","iat":1700000000,"exp":1700003600}"#
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .malformed)
    }

    @Test func claimsOfTheWrongTypeAreMalformed() {
        let payload = #"{"sub":7,"role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .malformed)
        let stringTime = #"{"sub":"u","role":"viewer","stream_ids":[],"iat":"1700000000","exp":1700003600}"#
        #expect(failure(verifier.verify(token(payload: stringTime), now: now)) == .malformed)
    }

    // MARK: strict JSON

    /// A token whose header and payload are exactly these bytes, MACed with the default key.
    func token(headerBytes: [UInt8], payloadBytes: [UInt8]) -> String {
        let input = Base64URL.encode(headerBytes) + "." + Base64URL.encode(payloadBytes)
        return input + "." + Base64URL.encode(crypto.hmacSHA256(key: defaultKey, message: Array(input.utf8)))
    }

    static let validPayload = #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600}"#

    @Test(arguments: [
        #"{"alg":"HS256","alg":"none"}"#, #"{"alg":"none","alg":"HS256"}"#, #"{"alg":"HS256","alg":"HS256"}"#,
        #"{"alg":"HS256","typ":"JWT","typ":"JWT"}"#, #"{"alg":"HS256","kid":"2024-01","kid":"x"}"#,
        #"{"alg":"HS256","x":{"a":1,"a":2}}"#, "\u{FEFF}{\"alg\":\"HS256\"}",
    ])
    func aHeaderWithDuplicateKeysOrAByteOrderMarkIsMalformed(header: String) {
        #expect(failure(verifier.verify(token(header: header, payload: Self.validPayload), now: now)) == .malformed)
    }

    @Test(arguments: [
        // Duplicate claims: neither the first nor the last may win.
        #"{"sub":"u","role":"admin","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600}"#,
        #"{"sub":"u","role":"viewer","role":"admin","stream_ids":[1],"iat":1700000000,"exp":1700003600}"#,
        #"{"sub":"u","sub":"v","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600,"exp":1700003000}"#,
        // Duplicates deeper down, in an object or an array of objects.
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600,"x":{"a":1,"a":2}}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600,"x":[{"b":{"a":1,"a":2}}]}"#,
        // Times that are not plain integers.
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600.0}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1.7000036e9}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1.7e9,"exp":1700003600}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600,"nbf":1699999999.5}"#,
        #"{"sub":"u","role":"viewer","stream_ids":[1],"iat":1700000000,"exp":1700003600,"nbf":17e8}"#,
        // A byte-order mark.
        "\u{FEFF}" + validPayload,
    ])
    func claimsWithDuplicateKeysFloatTimesOrAByteOrderMarkAreMalformed(payload: String) {
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .malformed)
    }

    @Test func utf16PartsAreMalformed() {
        let header = Array(#"{"alg":"HS256"}"#.utf8)
        let payload = Array(Self.validPayload.utf8)
        #expect(failure(verifier.verify(token(headerBytes: header, payloadBytes: payload), now: now)) == nil)
        for (name, encode) in [
            ("UTF-16LE", { (text: String) in text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }),
            ("UTF-16BE", { (text: String) in text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }),
            (
                "UTF-16LE with BOM",
                { (text: String) in [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
            ),
        ] as [(String, (String) -> [UInt8])] {
            let wideHeader = token(headerBytes: encode(#"{"alg":"HS256"}"#), payloadBytes: payload)
            #expect(failure(verifier.verify(wideHeader, now: now)) == .malformed, "\(name) header")
            let widePayload = token(headerBytes: header, payloadBytes: encode(Self.validPayload))
            #expect(failure(verifier.verify(widePayload, now: now)) == .malformed, "\(name) claims")
        }
    }

    // MARK: sizes

    @Test func aSubjectOfAtMost255BytesIsAcceptedAndALongerOneRefused() {
        for (length, expected) in [
            (255, TokenError?.none), (256, .claimTooLarge("sub")), (5000, .claimTooLarge("sub")),
        ] {
            let payload =
                #"{"sub":""# + String(repeating: "s", count: length)
                + #"","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
            #expect(failure(verifier.verify(token(payload: payload), now: now)) == expected, "\(length) bytes")
        }
        let multibyte = String(repeating: "é", count: 128)  // 256 bytes in 128 characters
        let payload =
            #"{"sub":""# + multibyte + #"","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == .claimTooLarge("sub"))
    }

    @Test func atMost1000StreamIDsAreAcceptedAndMoreRefused() {
        for (count, expected) in [(1000, TokenError?.none), (1001, .claimTooLarge("stream_ids"))] {
            let ids = (1...count).map(String.init).joined(separator: ",")
            let payload =
                #"{"sub":"u","role":"streamer","stream_ids":["# + ids + #"],"iat":1700000000,"exp":1700003600}"#
            #expect(failure(verifier.verify(token(payload: payload), now: now)) == expected, "\(count) IDs")
        }
    }

    // MARK: time

    @Test func theTokenExpiresExactlyAtExpPlusLeeway() {
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(failure(verifier.verify(signed, now: 1_700_003_629)) == nil)
        #expect(failure(verifier.verify(signed, now: 1_700_003_630)) == .expired)
        #expect(failure(verifier.verify(signed, now: 1_700_003_599, leeway: 0)) == nil)
        #expect(failure(verifier.verify(signed, now: 1_700_003_600, leeway: 0)) == .expired)
    }

    @Test func anIssueTimeBeyondTheLeewayInTheFutureIsNotYetValid() {
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(failure(verifier.verify(signed, now: 1_699_999_970)) == nil)
        #expect(failure(verifier.verify(signed, now: 1_699_999_969)) == .notYetValid)
    }

    @Test func extremeTimesDoNotTrap() {
        var claims = claims
        claims.expiresAt = Int64.max
        claims.issuedAt = Int64.min
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(failure(verifier.verify(signed, now: Int64.max, leeway: Int64.max)) == .expired)
        #expect(failure(verifier.verify(signed, now: 0, leeway: Int64.max)) == .lifetimeTooLong)
        let unlimited = JWTVerifier(keys: JWTKeySet(defaultKey: defaultKey), maxLifetime: Int64.max, crypto: crypto)
        #expect(failure(unlimited.verify(signed, now: 0, leeway: Int64.max)) == .lifetimeTooLong, "exp - iat overflows")
    }

    /// `nbf` (RFC 7519 §4.1.5) with the same 30 s leeway as `exp`; the claims are valid from
    /// iat 1_700_000_000 to exp 1_700_003_600.
    @Test(arguments: [
        (nbf: "1700001000", now: Int64(1_700_000_969), expected: TokenError?.some(.notYetValid)),
        (nbf: "1700001000", now: Int64(1_700_000_970), expected: nil),
        (nbf: "1700001000", now: Int64(1_700_001_000), expected: nil),
        (nbf: "1699990000", now: Int64(1_700_000_100), expected: nil),
        (nbf: "9223372036854775807", now: Int64(1_700_000_100), expected: .notYetValid),
        (nbf: "-9223372036854775808", now: Int64(1_700_000_100), expected: nil),
        (nbf: #""1700001000""#, now: Int64(1_700_001_000), expected: .malformed),
        (nbf: "null", now: Int64(1_700_000_100), expected: nil),
    ])
    func notBeforeIsHonouredWithTheLeeway(nbf: String, now: Int64, expected: TokenError?) {
        let payload =
            #"{"sub":"u","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600,"nbf":"# + nbf + "}"
        #expect(failure(verifier.verify(token(payload: payload), now: now)) == expected)
    }

    /// RFC 7515 §4.1.11: this verifier implements no extension, so any `crit` is refused, before
    /// the MAC is even computed (a wrong key still gives `criticalHeader`).
    @Test(arguments: [
        #"{"alg":"HS256","typ":"JWT","crit":["exp"]}"#, #"{"alg":"HS256","crit":["b64"],"b64":false}"#,
        #"{"alg":"HS256","crit":[]}"#, #"{"alg":"HS256","crit":null}"#, #"{"alg":"HS256","crit":"x"}"#,
    ])
    func aCritHeaderIsRefused(header: String) {
        let payload = #"{"sub":"u","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        #expect(failure(verifier.verify(token(header: header, payload: payload), now: now)) == .criticalHeader)
        let wrongKey = token(header: header, payload: payload, key: Array("another-key".utf8))
        #expect(failure(verifier.verify(wrongKey, now: now)) == .criticalHeader)
    }

    /// `exp - iat` against the maximum lifetime (default 86400 s; here also 3600 s).
    @Test(arguments: [
        (lifetime: Int64(86400), maximum: JWTVerifier.defaultMaxLifetime, expected: TokenError?.none),
        (lifetime: Int64(86401), maximum: JWTVerifier.defaultMaxLifetime, expected: .lifetimeTooLong),
        (lifetime: Int64(366 * 86400), maximum: JWTVerifier.defaultMaxLifetime, expected: .lifetimeTooLong),
        (lifetime: Int64(3600), maximum: Int64(3600), expected: nil),
        (lifetime: Int64(3601), maximum: Int64(3600), expected: .lifetimeTooLong),
        (lifetime: Int64(0), maximum: Int64(3600), expected: nil),
    ])
    func tokensLivingLongerThanTheMaximumAreRefused(lifetime: Int64, maximum: Int64, expected: TokenError?) {
        var claims = claims
        claims.issuedAt = now - 10
        claims.expiresAt = claims.issuedAt + lifetime
        let verifier = JWTVerifier(keys: JWTKeySet(defaultKey: defaultKey), maxLifetime: maximum, crypto: crypto)
        let signed = JWTSigner(crypto: crypto).sign(claims, key: defaultKey)
        #expect(failure(verifier.verify(signed, now: now - 10)) == expected)
    }
}

/// The key rotation file (`--token-keys-file`) and the minimum secret length.
@Suite struct JWTKeySetTests {
    let long1 = String(repeating: "a", count: 32)
    let long2 = String(repeating: "b", count: 40)

    @Test func keyLinesGiveOneKeyPerKidIgnoringBlankLinesAndComments() throws {
        let text = "# rotated 2026-01\n\n2026-01 \(long1)\r\n  2026-02\t\(long2)  \n#old x\n"
        let keys = try JWTKeySet.parseKeyLines(text)
        #expect(keys == ["2026-01": Array(long1.utf8), "2026-02": Array(long2.utf8)])
        #expect(try JWTKeySet.parseKeyLines("") == [:])
    }

    @Test(arguments: [
        (
            "k1 " + String(repeating: "a", count: 31),
            "line 1: the secret of kid 'k1' is 31 bytes; at least 32 are required"
        ),
        ("k1", "line 1: expected 'KID SECRET', found 1 fields"),
        ("\nk1 a b", "line 2: expected 'KID SECRET', found 3 fields"),
        (
            "k1 " + String(repeating: "a", count: 32) + "\nk1 " + String(repeating: "b", count: 32),
            "line 2: kid 'k1' appears twice"
        ),
        ("kï " + String(repeating: "a", count: 32), "line 1: the kid must be printable ASCII"),
        (
            "../k " + String(repeating: "a", count: 32),
            #"line 1: the kid must be at most 128 characters without / \ or .."#
        ),
    ])
    func badKeyLinesAreRefusedWithTheLineNumber(text: String, message: String) {
        #expect(throws: JWTKeySet.ConfigurationError(message)) { try JWTKeySet.parseKeyLines(text) }
    }

    @Test func aSecretNeedsAtLeast32Bytes() {
        #expect(JWTKeySet.problem(withSecret: []) == "is empty; at least 32 bytes are required")
        #expect(JWTKeySet.problem(withSecret: Array(repeating: 1, count: 31)) != nil)
        #expect(JWTKeySet.problem(withSecret: Array(repeating: 1, count: 32)) == nil)
    }

    @Test func aRotatedKeyVerifiesOnlyUnderItsKidAndTheDefaultStillWorks() throws {
        let crypto = OpenSSLCrypto()
        let keys = try JWTKeySet.parseKeyLines("new \(long2)")
        let verifier = JWTVerifier(keys: JWTKeySet(defaultKey: Array(long1.utf8), keys: keys), crypto: crypto)
        let claims = TokenClaims(subject: "u", role: .viewer, streamIds: [], issuedAt: 100, expiresAt: 200)
        let signer = JWTSigner(crypto: crypto)
        #expect(try verifier.verify(signer.sign(claims, key: Array(long2.utf8), kid: "new"), now: 150).get() == claims)
        #expect(try verifier.verify(signer.sign(claims, key: Array(long1.utf8)), now: 150).get() == claims)
        #expect(throws: TokenError.badSignature) {
            try verifier.verify(signer.sign(claims, key: Array(long1.utf8), kid: "new"), now: 150).get()
        }
        #expect(throws: TokenError.unknownKeyID("old")) {
            try verifier.verify(signer.sign(claims, key: Array(long2.utf8), kid: "old"), now: 150).get()
        }
    }
}

@Suite struct JWTBase64URLTests {
    @Test(arguments: [
        ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"),
        ("foobar", "Zm9vYmFy"),
    ])
    func theRFC4648VectorsEncodeWithoutPaddingAndDecodeBack(plain: String, encoded: String) {
        #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
        #expect(Base64URL.decode(encoded) == Array(plain.utf8))
    }

    @Test func theURLSafeAlphabetIsUsed() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test(arguments: ["Zg==", "Zg=", "Z", "Zm9vY", "Zh", "Zm9=", "Zm+v", "Zm/v", "Zm9v\n", " Zm9v", "Zm9vä"])
    func nonCanonicalOrForeignInputIsRefused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}

extension String {
    fileprivate func replacingFirst(_ target: Character, with replacement: Character) -> String {
        guard let index = firstIndex(of: target) else { return self }
        var copy = self
        copy.replaceSubrange(index...index, with: String(replacement))
        return copy
    }
}

import PreviewCrypto
import Testing

@testable import PreviewApp
@testable import PreviewCore
@testable import PreviewServer

@Suite struct BearerTokenTests {
    @Test func theTokenIsWhatFollowsTheBearerSchemeInAnyCaseWithoutTheBlanksAroundIt() {
        #expect(Authenticator.bearerToken("Bearer abc.def") == "abc.def")
        #expect(Authenticator.bearerToken("bearer abc") == "abc")
        #expect(Authenticator.bearerToken("  BEARER   abc \t") == "abc")
        #expect(Authenticator.bearerToken("Bearer  ") == "", "present but empty: refused as an invalid token")
    }

    @Test func anotherSchemeOrShapeIsNoBearerToken() {
        for header in ["", "Bearer", "Bearer ", "Basic abc", "Bearer\tabc", "Bearerx abc", "Beare abc", "   "] {
            #expect(Authenticator.bearerToken(header) == nil, "\(header)")
        }
    }

    @Test func anAuthenticationKeptOnTheRequestIsTheAnswerWithoutVerifyingAgain() throws {
        let key = Array("bearer-token-tests-secret-of-32-bytes".utf8)
        let authenticator = Authenticator(
            verifier: JWTVerifier(keys: JWTKeySet(defaultKey: key), crypto: OpenSSLCrypto()))
        let claims = TokenClaims(subject: "kept", role: .viewer, streamIds: [], issuedAt: 0, expiresAt: 60)
        // A header that would be refused: the kept answer is used, so it is never read again.
        var request = HTTPRequest(
            method: "GET", path: "/api/feed", headers: HTTPHeaders([("Authorization", "Bearer not-a-token")]))
        #expect(throws: APIError.self) { try authenticator.optionalCaller(request, now: 10) }
        request.authentication = .success(claims)
        #expect(try authenticator.optionalCaller(request, now: 10) == claims)
        #expect(try authenticator.caller(request, now: 10) == claims)
        request.authentication = .success(nil)
        #expect(throws: APIError.self) { try authenticator.caller(request, now: 10) }
    }

    /// The refusal `optionalCaller` throws for a token with exactly this payload, signed right.
    func refusal(payload: String) -> APIError? {
        let crypto = OpenSSLCrypto()
        let key = Array("bearer-token-tests-secret-of-32-bytes".utf8)
        let authenticator = Authenticator(verifier: JWTVerifier(keys: JWTKeySet(defaultKey: key), crypto: crypto))
        let input =
            Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let token = input + "." + Base64URL.encode(crypto.hmacSHA256(key: key, message: Array(input.utf8)))
        let request = HTTPRequest(
            method: "GET", path: "/api/feed", headers: HTTPHeaders([("Authorization", "Bearer " + token)]))
        do {
            _ = try authenticator.optionalCaller(request, now: 1_700_000_100)
            return nil
        } catch {
            return error
        }
    }

    @Test func aDuplicateRoleOrAFloatTimeIsRefusedWith401() throws {
        for payload in [
            #"{"sub":"u","role":"admin","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#,
            #"{"sub":"u","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600.0}"#,
        ] {
            let error = try #require(refusal(payload: payload), "\(payload)")
            #expect(error.code == .unauthenticated && error.status == 401)
            #expect(error.message == "the token is not valid")
        }
    }

    @Test func anOverlongSubjectOrTooManyStreamsAreRefusedWith401SayingWhich() throws {
        let longSub =
            #"{"sub":""# + String(repeating: "s", count: 256)
            + #"","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        let sub = try #require(refusal(payload: longSub))
        #expect(sub.code == .unauthenticated && sub.message == "the token's sub is longer than 255 bytes")
        let ids = (1...1001).map(String.init).joined(separator: ",")
        let manyStreams =
            #"{"sub":"u","role":"streamer","stream_ids":["# + ids + #"],"iat":1700000000,"exp":1700003600}"#
        let streams = try #require(refusal(payload: manyStreams))
        #expect(
            streams.code == .unauthenticated && streams.message == "the token's stream_ids has more than 1000 entries")
        let fits =
            #"{"sub":""# + String(repeating: "s", count: 255)
            + #"","role":"viewer","stream_ids":[],"iat":1700000000,"exp":1700003600}"#
        #expect(refusal(payload: fits) == nil)
    }
}

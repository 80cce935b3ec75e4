import Testing

@testable import PreviewApp

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
}

import PreviewCore
import Testing

@testable import PreviewApp

/// `serve`'s identity-provider flags and their variables.
@Suite struct IdentityProviderOptionsTests {
    func identity(_ arguments: [String], environment: [String: String] = [:]) throws -> IdentityProviderOptions {
        guard case .serve(let options) = try Command.parse(["serve"] + arguments, environment: environment).get() else {
            throw UsageError("not serve")
        }
        return options.identity
    }

    func usage(_ arguments: [String]) -> String? {
        if case .failure(let error) = Command.parse(["serve"] + arguments, environment: [:]) { return error.message }
        return nil
    }

    @Test func flagsSetTheKeySourceIssuersAudiencesAndClaimNames() throws {
        let parsed = try identity([
            "--jwks-url", "https://idp.example.test/.well-known/jwks.json", "--jwt-issuer", "https://idp.example.test/",
            "--jwt-audience", "a", "--jwt-audience", "b", "--jwt-role-claim", "app_metadata.role",
            "--jwt-streams-claim", "https://x.test/streams", "--jwt-default-role", "viewer",
        ])
        #expect(parsed.jwksURL == "https://idp.example.test/.well-known/jwks.json")
        #expect(parsed.policy.issuers == ["https://idp.example.test/"])
        #expect(parsed.policy.audiences == ["a", "b"])
        #expect(parsed.policy.roleClaim == ClaimPath("app_metadata.role"))
        #expect(parsed.policy.streamsClaim.text == "https://x.test/streams")
        #expect(parsed.policy.defaultRole == .viewer)
    }

    @Test func variablesTakeCommaListsForIssuersAndAudiences() throws {
        let parsed = try identity(
            [],
            environment: [
                "STREAMPREVIEW_JWKS_FILE": "/etc/jwks.json", "STREAMPREVIEW_JWT_AUDIENCE": "a,b",
                "STREAMPREVIEW_JWT_ISSUER": "https://idp.example.test/",
            ])
        #expect(parsed.jwksFile == "/etc/jwks.json")
        #expect(parsed.policy.audiences == ["a", "b"])
    }

    @Test(arguments: [
        (["--jwks-file", "a", "--jwks-url", "https://x.test/k"], "not both"),
        (["--jwks-url", "file:///etc/jwks.json"], "must be an http:// or https:// URL"),
        (["--jwks-url", "ftp://x.test/k"], "must be an http:// or https:// URL"),
        (["--jwt-issuer", "https://x.test/"], "give --jwks-file or --jwks-url too"),
        (["--jwks-file", "a", "--jwt-role-claim", "a..b"], "dotted path"),
        (["--jwks-file", "a", "--jwt-default-role", "owner"], "streamer, viewer or admin"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let error = try #require(usage(arguments), "accepted \(arguments)")
        #expect(error.contains(message), "\(error)")
    }
}

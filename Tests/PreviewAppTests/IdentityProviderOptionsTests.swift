import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

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
        (["--jwks-file", "a"], "give --jwt-issuer (the provider's iss"),
        (["--jwks-url", "https://x.test/k", "--jwt-audience", "api"], "or --jwt-allow-any-issuer to accept"),
        (["--jwks-file", "a", "--jwt-issuer", "https://x.test/"], "give --jwt-audience (the API identifier"),
        (
            [
                "--jwks-file", "a", "--jwt-issuer", "https://x.test/", "--jwt-audience", "api",
                "--jwt-allow-any-audience",
            ],
            "--jwt-allow-any-audience contradicts --jwt-audience"
        ),
        (
            ["--jwks-file", "a", "--jwt-issuer", "https://x.test/", "--jwt-allow-any-issuer", "--jwt-audience", "api"],
            "--jwt-allow-any-issuer contradicts --jwt-issuer"
        ),
        (["--jwks-file", "a", "--jwt-issuer", "i", "--jwt-allow-any-audience=yes"], "takes true or false"),
        (["--jwt-allow-any-audience"], "give --jwks-file or --jwks-url too"),
        (["--jwt-admin-role", "sp-admin"], "give --jwks-file or --jwks-url too"),
        (["--jwks-file", "a", "--jwt-issuer", "i", "--jwt-audience", "api", "--jwt-admin-role="], "needs a role name"),
    ])
    func usageErrors(arguments: [String], message: String) throws {
        let error = try #require(usage(arguments), "accepted \(arguments)")
        #expect(error.contains(message), "\(error)")
    }

    @Test func eachScopeCheckIsWaivedOnlyByItsOwnFlagOrVariable() throws {
        let flags = try identity(["--jwks-file", "a", "--jwt-allow-any-issuer", "--jwt-audience", "api"])
        #expect(flags.policy.acceptsAnyIssuer && !flags.policy.acceptsAnyAudience)
        let variables = try identity(
            [],
            environment: [
                "STREAMPREVIEW_JWKS_FILE": "a", "STREAMPREVIEW_JWT_ISSUER": "https://x.test/",
                "STREAMPREVIEW_JWT_ALLOW_ANY_AUDIENCE": "true",
            ])
        #expect(!variables.policy.acceptsAnyIssuer && variables.policy.acceptsAnyAudience)
        let scoped = try identity(["--jwks-file", "a", "--jwt-issuer", "https://x.test/", "--jwt-audience", "api"])
        #expect(!scoped.policy.acceptsAnyIssuer && !scoped.policy.acceptsAnyAudience)
        #expect(
            try identity([], environment: ["STREAMPREVIEW_JWT_ALLOW_ANY_ISSUER": "false"]) == IdentityProviderOptions())
    }

    @Test func theAdminRoleNameComesFromItsFlag() throws {
        let parsed = try identity([
            "--jwks-file", "a", "--jwt-issuer", "https://x.test/", "--jwt-audience", "api", "--jwt-admin-role",
            "streampreview-admin",
        ])
        #expect(parsed.policy.adminRoleName == "streampreview-admin")
    }
}

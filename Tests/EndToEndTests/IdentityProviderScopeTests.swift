import Foundation
import PreviewCore
import PreviewTestSupport
import Testing

/// Provider tokens are scoped: `serve` needs an issuer and an audience for them (or an explicit
/// waiver, logged), and a provider's subject is kept apart from ours and other issuers'.
@Suite("Identity-provider tokens: issuer, audience and subjects")
struct IdentityProviderScopeTests {
    static let issuer = IdentityProviderFileTests.issuer
    static let audience = IdentityProviderFileTests.audience

    @Test("Provider keys without --jwt-issuer or --jwt-audience stop serve with exit 64, naming the missing flag")
    func scopeRequired() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-scope")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let serve = [try ServiceProcess.binaryPath(), "serve", "--port", "0", "--data-dir", folder + "/data"]
        for (extra, missing) in [
            (["--jwks-file", folder + "/jwks.json"], "--jwt-issuer"),
            (["--jwks-file", folder + "/jwks.json", "--jwt-issuer", Self.issuer], "--jwt-audience"),
            (["--jwks-url", "https://idp.example.test/jwks", "--jwt-audience", Self.audience], "--jwt-issuer"),
        ] {
            let result = try ProcessResult.run(serve + extra, timeout: 30)
            #expect(result.status == 64, "\(extra): \(result.stderr)")
            #expect(result.stderr.contains("give \(missing) ("), "\(result.stderr)")
        }
    }

    @Test(
        "--jwt-allow-any-audience starts serve with a warning, and then a token for another API of the provider is accepted"
    )
    func waivedAudience() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-waived")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var claims = IdentityProviderFileTests.claims()
        claims["aud"] = "another-api"
        let minted = try JWTOracle.mint(
            keyDirectory: folder + "/keys", jwks: ["ed-1"], tokens: ["other": OracleToken(kid: "ed-1", claims: claims)])
        let file = folder + "/jwks.json"
        try IdentityProviderFileTests.write(minted.jwks, to: file)
        let service = try ServiceProcess(
            arguments: ["--jwks-file", file, "--jwt-issuer", Self.issuer, "--jwt-allow-any-audience"], replicas: 1)
        let api = try APIClient(service)
        let other = try #require(minted.tokens["other"])
        #expect(try api.feed(token: other).status == 200)
        let log = try String(contentsOfFile: service.stderrPath, encoding: .utf8)
        #expect(
            log.split(separator: "\n").contains { $0.contains("level=warn") && $0.contains("event=jwt_any_audience") },
            "\(log)")
        #expect(!log.contains("event=jwt_any_issuer"), "\(log)")
    }

    @Test("A provider subject named like an HS256 subject neither sees nor removes that subject's like or seen mark")
    func subjectsKeyedByIssuer() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-subjects")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var claims = IdentityProviderFileTests.claims()
        claims["sub"] = "idp-user"
        let minted = try JWTOracle.mint(
            keyDirectory: folder + "/keys", jwks: ["ec-1"], tokens: ["idp": OracleToken(kid: "ec-1", claims: claims)])
        let file = folder + "/jwks.json"
        try IdentityProviderFileTests.write(minted.jwks, to: file)
        let service = try ServiceProcess(
            arguments: ["--jwks-file", file, "--jwt-issuer", Self.issuer, "--jwt-audience", Self.audience],
            replicas: 1)
        let api = try APIClient(service)
        try api.publish(streamId: 42, token: try service.token(sub: "sam", role: "streamer", streams: [42]))
        let own = try service.token(sub: "idp-user", role: "viewer")
        let provider = try #require(minted.tokens["idp"])

        #expect(try api.send("POST", "/api/streams/42/like", token: own).json(LikeResponse.self).likes == 1)
        #expect(try api.send("POST", "/api/streams/42/seen", token: own).status == 204)
        let seenByProvider = try #require(try api.feedItems(token: provider).first)
        #expect(!seenByProvider.liked && !seenByProvider.seen, "the HS256 idp-user's like and seen mark are not theirs")

        let unliked = try api.send("DELETE", "/api/streams/42/like", token: provider)
        #expect(try unliked.json(LikeResponse.self) == LikeResponse(likes: 1, liked: false))
        let kept = try #require(try api.feedItems(token: own).first)
        #expect(kept.liked && kept.seen)
        #expect(try api.send("POST", "/api/streams/42/like", token: provider).json(LikeResponse.self).likes == 2)
    }
}

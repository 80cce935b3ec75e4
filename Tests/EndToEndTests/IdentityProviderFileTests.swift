import Foundation
import PreviewTestSupport
import Testing

/// `--jwks-file`: provider tokens (minted by PyJWT) verified by `serve`, the key set reloaded
/// when the file changes and on SIGHUP, a bad reload keeping the keys in use.
@Suite("Identity-provider keys from a JWKS file")
struct IdentityProviderFileTests {
    static let issuer = "https://idp.example.test/"
    static let audience = "streampreview-api"

    static func claims(role: String = "viewer") -> [String: OracleJSON] {
        let now = Int64(Date().timeIntervalSince1970)
        return [
            "sub": "idp|ann", "iss": .string(issuer), "aud": .string(audience), "iat": .int(now - 60),
            "exp": .int(now + 3600), "role": .string(role),
        ]
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        // Written aside and renamed: the server never reads half a document.
        try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    @Test(
        "Provider tokens are accepted; a key rotated out of the changed file is refused and the new one accepted without a restart"
    )
    func rotationByFileChange() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-file")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keys = folder + "/keys"
        let old = try JWTOracle.mint(
            keyDirectory: keys, jwks: ["rsa-1", "ec-1"],
            tokens: [
                "rsa": OracleToken(kid: "rsa-1", claims: Self.claims()),
                "ec": OracleToken(kid: "ec-1", claims: Self.claims(role: "admin")),
                "ed": OracleToken(kid: "ed-2", claims: Self.claims()),
            ])
        let new = try JWTOracle.mint(keyDirectory: keys, jwks: ["ed-2"], tokens: [:])
        let file = folder + "/jwks.json"
        try Self.write(old.jwks, to: file)
        let service = try ServiceProcess(
            arguments: [
                "--jwks-file", file, "--jwt-issuer", Self.issuer, "--jwt-audience", "other",
                "--jwt-audience", Self.audience,
            ], replicas: 1)
        let api = try APIClient(service)
        let (rsa, ec, ed) = (
            try #require(old.tokens["rsa"]), try #require(old.tokens["ec"]), try #require(old.tokens["ed"])
        )
        #expect(try api.feed(token: rsa).status == 200)
        #expect(try api.feed(token: ec).status == 200)
        #expect(try api.feed(token: ed).status == 401, "ed-2 is not published yet")
        #expect(
            try api.feed(token: service.token(sub: "own", role: "viewer")).status == 200, "our HS256 tokens still work")

        try Self.write(new.jwks, to: file)
        #expect(
            eventually(within: 20) { (try? api.feed(token: ed).status) == 200 },
            "the new key is read from the changed file")
        #expect(try api.feed(token: rsa).status == 401, "rsa-1 left the set: its held token is refused too")
        #expect(try api.metricValue("streampreview_jwks_fetch_failures_total") == "0")

        try Self.write(Array("{\"keys\": not json".utf8), to: file)
        #expect(eventually(within: 20) { (try? api.metricValue("streampreview_jwks_fetch_failures_total")) == "1" })
        #expect(try api.feed(token: ed).status == 200, "a bad reload keeps the keys in use")
        #expect(try api.metricValue("streampreview_jwks_keys") == "1")
    }

    @Test("SIGHUP reloads the file even when its size, time and inode look unchanged")
    func reloadOnHangup() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-hup")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let keys = folder + "/keys"
        let first = try JWTOracle.mint(
            keyDirectory: keys, jwks: ["ed-1"],
            tokens: [
                "one": OracleToken(kid: "ed-1", claims: Self.claims()),
                "two": OracleToken(kid: "ed-2", claims: Self.claims()),
            ])
        let second = try JWTOracle.mint(keyDirectory: keys, jwks: ["ed-2"], tokens: [:])
        try #require(first.jwks.count == second.jwks.count, "Ed25519 documents of equal kid lengths are equally long")
        let file = folder + "/jwks.json"
        try Data(first.jwks).write(to: URL(fileURLWithPath: file))
        let service = try ServiceProcess(
            arguments: ["--jwks-file", file, "--jwt-issuer", Self.issuer, "--jwt-audience", Self.audience],
            replicas: 1)
        let api = try APIClient(service)
        let (one, two) = (try #require(first.tokens["one"]), try #require(first.tokens["two"]))
        #expect(try api.feed(token: one).status == 200)

        // Same inode (written in place), same size, and the modification time put back.
        var before = stat()
        try #require(stat(file, &before) == 0)
        let handle = try #require(FileHandle(forWritingAtPath: file))
        try handle.write(contentsOf: Data(second.jwks))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        try #require(utimensat(AT_FDCWD, file, &times, 0) == 0)
        #expect(try api.feed(token: two).status == 401, "not reloaded without the signal")

        service.send(signal: SIGHUP)
        #expect(eventually(within: 20) { (try? api.feed(token: two).status) == 200 }, "SIGHUP reloads")
        #expect(try api.feed(token: one).status == 401)
        #expect(service.exitStatus == nil, "SIGHUP does not stop serve")
    }

    @Test("Claim names map onto ours: a nested role and stream list let a provider streamer upload its stream only")
    func claimMapping() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-claims")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var streamer = Self.claims()
        streamer["role"] = nil
        streamer["app_metadata"] = ["role": "streamer", "streams": ["42"]]
        var anyone = Self.claims()
        anyone["role"] = nil
        var foreign = Self.claims()
        foreign["iss"] = "https://other.example.test/"
        let minted = try JWTOracle.mint(
            keyDirectory: folder + "/keys", jwks: ["ec-1"],
            tokens: [
                "streamer": OracleToken(kid: "ec-1", claims: streamer),
                "anyone": OracleToken(kid: "ec-1", claims: anyone),
                "foreign": OracleToken(kid: "ec-1", claims: foreign),
            ])
        let file = folder + "/jwks.json"
        try Self.write(minted.jwks, to: file)
        let service = try ServiceProcess(
            arguments: [
                "--jwks-file", file, "--jwt-issuer", Self.issuer, "--jwt-audience", Self.audience,
                "--jwt-role-claim", "app_metadata.role", "--jwt-streams-claim", "app_metadata.streams",
                "--jwt-default-role", "viewer",
            ], replicas: 1)
        let api = try APIClient(service)
        let token = try #require(minted.tokens["streamer"])
        _ = try api.issue(streamId: 42, movie: TestMedia.mp4(), thumbnail: TestMedia.jpeg(), token: token)
        let post = { (id: Int64, token: String) throws -> Reply in
            try api.send(
                "POST", "/api/preview/post", headers: [("Content-Type", "application/json")],
                body: Array(#"{"streamId":"\#(id)"}"#.utf8), token: token)
        }
        expectError(try post(43, token), status: 403, code: "forbidden", target: "streamId")
        let viewer = try #require(minted.tokens["anyone"])
        #expect(try api.feed(token: viewer).status == 200, "no role claim: --jwt-default-role viewer")
        expectError(try post(42, viewer), status: 403, code: "forbidden")
        let foreignToken = try #require(minted.tokens["foreign"])
        let refused = try api.feed(token: foreignToken)
        expectError(refused, status: 401, code: "unauthenticated")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("issuer"))
    }

    @Test("A JWKS file that is not a key set stops serve with exit 78")
    func badFileAtStart() throws {
        let folder = try TestPaths.makeTemporaryDirectory(prefix: "sp-jwks-bad")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(#"{"keys":[{"kty":"oct","kid":"h","k":"c2VjcmV0"}]}"#.utf8).write(
            to: URL(fileURLWithPath: folder + "/jwks.json"))
        let result = try ProcessResult.run(
            [
                try ServiceProcess.binaryPath(), "serve", "--port", "0", "--data-dir", folder + "/data", "--jwks-file",
                folder + "/jwks.json", "--jwt-issuer", Self.issuer, "--jwt-audience", Self.audience,
            ], timeout: 30)
        #expect(result.status == 78, "\(result.stderr)")
        #expect(result.stderr.contains("no usable signing key"), "\(result.stderr)")
    }
}

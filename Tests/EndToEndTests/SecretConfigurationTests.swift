import Foundation
import PreviewCore
import PreviewCrypto
import PreviewTestSupport
import Testing

/// Misconfigured secrets stop the binary (64 for a weak value on the command line, 78 for a bad
/// file); secrets are private on disk; secrets and tokens can come from the environment or files.
@Suite("Secrets fail closed")
struct SecretConfigurationTests {
    static let secret = String(repeating: "0123456789abcdef", count: 3)

    /// Runs the binary to completion with `environment` added (at most 30 s).
    func run(_ arguments: [String], environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessResult.run([try ServiceProcess.binaryPath()] + arguments, timeout: 30, environment: environment)
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test(
        "A token secret under 32 bytes stops serve and token with exit 64 before anything is created",
        arguments: [
            (["--token-secret", "short"], [String: String]()),
            (["--token-secret="], [:]),
            ([], ["STREAMPREVIEW_TOKEN_SECRET": String(repeating: "x", count: 31)]),
        ])
    func weakSecretValue(arguments: [String], environment: [String: String]) throws {
        let parent = try TestPaths.makeTemporaryDirectory(prefix: "sp-weak")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        for command in [["serve", "--port", "0"], ["token", "--sub", "ann"]] {
            let result = try run(
                command + ["--data-dir", parent + "/data"] + arguments, environment: environment)
            #expect(result.status == 64, "\(command) \(arguments): \(result.stderr)")
            #expect(result.stderr.contains("at least 32"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(!FileManager.default.fileExists(atPath: parent + "/data"), "nothing was created")
        }
    }

    /// One bad secret file: what is in the data dir, and what is given.
    struct BadFile: Sendable, CustomStringConvertible {
        var description: String
        var dataFiles: [String: String] = [:]
        var arguments: @Sendable (String) -> [String] = { _ in [] }
        var environment: @Sendable (String) -> [String: String] = { _ in [:] }
        var named: String
    }

    static let badFiles: [BadFile] = [
        BadFile(
            description: "empty token-secret in the data dir", dataFiles: ["token-secret": ""], named: "token-secret"),
        BadFile(
            description: "blank token-secret in the data dir", dataFiles: ["token-secret": " \n"], named: "token-secret"
        ),
        BadFile(
            description: "short token-secret in the data dir", dataFiles: ["token-secret": "0123456789abcdef\n"],
            named: "token-secret"),
        BadFile(
            description: "empty storage-secret in the data dir", dataFiles: ["storage-secret": ""],
            named: "storage-secret"),
        BadFile(
            description: "missing --token-secret-file", arguments: { ["--token-secret-file", $0 + "/absent"] },
            named: "absent"),
        BadFile(
            description: "--token-secret-file naming a directory", arguments: { ["--token-secret-file", $0] },
            named: "not a regular file"),
        BadFile(
            description: "empty STREAMPREVIEW_TOKEN_SECRET_FILE", dataFiles: ["given": ""],
            environment: { ["STREAMPREVIEW_TOKEN_SECRET_FILE": $0 + "/given"] }, named: "given"),
        BadFile(
            description: "a keys file with a short secret", dataFiles: ["keys": "k1 0123456789\n"],
            arguments: { ["--token-keys-file", $0 + "/keys"] }, named: "k1"),
    ]

    @Test(
        "An empty, short, missing or unreadable secret file stops serve with exit 78 and is left as it was",
        arguments: badFiles)
    func badSecretFile(_ bad: BadFile) throws {
        let data = try TestPaths.makeTemporaryDirectory(prefix: "sp-bad")
        defer { try? FileManager.default.removeItem(atPath: data) }
        for (name, content) in bad.dataFiles { try write(content, to: data + "/" + name) }
        let result = try run(
            ["serve", "--port", "0", "--data-dir", data] + bad.arguments(data), environment: bad.environment(data))
        #expect(result.status == 78, "\(result.status): \(result.stderr)")
        #expect(result.stderr.contains(bad.named), "\(result.stderr)")
        #expect(!result.stdout.contains("listening"))
        #expect(!FileManager.default.fileExists(atPath: data + "/redis"), "stopped before starting Redis")
        for (name, content) in bad.dataFiles {
            #expect(try String(contentsOfFile: data + "/" + name, encoding: .utf8) == content, "\(name) kept as it was")
        }
    }

    @Test("Generated secrets are mode 0600 in a 0700 data dir; a data dir open to others is made private")
    func privateFiles() throws {
        let data = try TestPaths.makeTemporaryDirectory(prefix: "sp-modes")
        defer { try? FileManager.default.removeItem(atPath: data) }
        #expect(chmod(data, 0o755) == 0)
        let service = try ServiceProcess(dataDirectory: data)
        #expect(try mode(data) == 0o700)
        for name in ["token-secret", "storage-secret"] {
            #expect(try mode(data + "/" + name) == 0o600, "\(name)")
            let secret = try String(contentsOfFile: data + "/" + name, encoding: .utf8)
            #expect(secret.count == 65 && secret.hasSuffix("\n"), "64 hex digits: \(secret)")
        }
        service.stop()
        let log = try String(contentsOfFile: service.stderrPath, encoding: .utf8)
        #expect(log.contains("event=permissions_fixed") && log.contains("old_mode=755"), "\(log)")
    }

    @Test(
        "serve and token read the secret from the environment or a file; upload reads STREAMPREVIEW_TOKEN or --token-file"
    )
    func secretsFromEnvironmentAndFiles() throws {
        let work = try TestPaths.makeTemporaryDirectory(prefix: "sp-env")
        defer { try? FileManager.default.removeItem(atPath: work) }
        try write(Self.secret + "\n", to: work + "/token-secret-file")
        let service = try ServiceProcess(arguments: ["--token-secret-file", work + "/token-secret-file"])
        let api = try APIClient(service)
        #expect(!FileManager.default.fileExists(atPath: service.dataDirectory + "/token-secret"), "none generated")

        let minted = try run(
            ["token", "--sub", "sam", "--role", "streamer", "--stream", "42", "--data-dir", work + "/other"],
            environment: ["STREAMPREVIEW_TOKEN_SECRET": Self.secret])
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try api.feed(token: token).status == 200)
        let now = unixNow()
        let foreign = craftedToken(
            secret: String(repeating: "f", count: 48), sub: "sam", role: .streamer, streams: [42], issuedAt: now,
            expiresAt: now + 600)
        #expect(try api.feed(token: foreign).status == 401)

        try Data(TestMedia.mp4()).write(to: URL(fileURLWithPath: work + "/clip.mp4"))
        try Data(TestMedia.jpeg()).write(to: URL(fileURLWithPath: work + "/thumb.jpg"))
        let upload = ["upload", "--server", service.baseURL, "--stream", "42", work + "/clip.mp4", work + "/thumb.jpg"]
        let viaVariable = try run(upload, environment: ["STREAMPREVIEW_TOKEN": token])
        #expect(viaVariable.status == 0, "\(viaVariable.stderr)")
        #expect(viaVariable.stdout.contains(#""previewVersion":"1""#), "\(viaVariable.stdout)")
        try write(token + "\n", to: work + "/bearer")
        let viaFile = try run(["upload", "--token-file", work + "/bearer"] + upload.dropFirst())
        #expect(viaFile.status == 0, "\(viaFile.stderr)")
        #expect(viaFile.stdout.contains(#""previewVersion":"2""#), "\(viaFile.stdout)")
        try write("", to: work + "/bearer")
        #expect(try run(["upload", "--token-file", work + "/bearer"] + upload.dropFirst()).status == 78)
    }

    @Test("A token signed with a rotated key verifies by its kid; lifetimes over --max-token-lifetime are refused")
    func keyRotationAndLifetime() throws {
        let work = try TestPaths.makeTemporaryDirectory(prefix: "sp-kid")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let rotated = String(repeating: "r", count: 40)
        try write("# next key\nk2 \(rotated)\n", to: work + "/keys")
        let service = try ServiceProcess(arguments: [
            "--token-keys-file", work + "/keys", "--max-token-lifetime", "600",
        ])
        let api = try APIClient(service)
        let common = ["--data-dir", service.dataDirectory, "--token-keys-file", work + "/keys"]

        let minted = try run(
            ["token", "--sub", "ann", "--kid", "k2"] + common, environment: ["STREAMPREVIEW_MAX_TOKEN_LIFETIME": "600"])
        #expect(minted.status == 0, "\(minted.stderr)")
        let token = minted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try api.feed(token: token).status == 200)
        let header = try #require(token.split(separator: ".").first)
        #expect(String(decoding: try #require(base64URLDecode(String(header))), as: UTF8.self).contains(#""kid":"k2""#))

        let unknownKid = try run(["token", "--sub", "ann", "--kid", "k9", "--ttl", "60"] + common)
        #expect(unknownKid.status == 64, "\(unknownKid.stderr)")
        let tooLong = try run(["token", "--sub", "ann", "--ttl", "601", "--max-token-lifetime", "600"] + common)
        #expect(tooLong.status == 64, "\(tooLong.stderr)")

        let now = unixNow()
        let secret = try service.tokenSecret()
        let at600 = craftedToken(secret: secret, sub: "ann", role: .viewer, issuedAt: now, expiresAt: now + 600)
        let at601 = craftedToken(secret: secret, sub: "ann", role: .viewer, issuedAt: now, expiresAt: now + 601)
        #expect(try api.feed(token: at600).status == 200)
        expectError(try api.feed(token: at601), status: 401, code: "unauthenticated")
        let signer = JWTSigner(crypto: OpenSSLCrypto())
        let claims = TokenClaims(subject: "ann", role: .viewer, streamIds: [], issuedAt: now, expiresAt: now + 60)
        #expect(try api.feed(token: signer.sign(claims, key: Array(rotated.utf8), kid: "k9")).status == 401)
        #expect(
            try api.feed(token: signer.sign(claims, key: Array(rotated.utf8))).status == 401,
            "k2's key is not the default")
    }

    /// Base64url without padding, decoded by Foundation.
    func base64URLDecode(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { Array($0) }
    }
}

import Foundation
import PreviewCore
import PreviewTestSupport
import StreamPreviewClient
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// Where secrets and tokens come from on the command line, and how a weak one stops a command.
@Suite struct SecretOptionsTests {
    let secret40 = String(repeating: "s", count: 40)

    func failure(_ arguments: [String], environment: [String: String] = [:]) throws -> String {
        guard case .failure(let error) = Command.parse(arguments, environment: environment) else {
            throw UsageError("accepted \(arguments) with \(environment)")
        }
        return error.message
    }

    @Test(arguments: [
        (["serve", "--token-secret", "short"], [String: String]()),
        (["serve", "--token-secret="], [:]),
        (["serve", "--token-secret", String(repeating: "x", count: 31)], [:]),
        (["serve"], ["STREAMPREVIEW_TOKEN_SECRET": "short"]),
        (["token", "--sub", "a", "--token-secret", "short"], [:]),
        (["token", "--sub", "a"], ["STREAMPREVIEW_TOKEN_SECRET": String(repeating: "x", count: 31)]),
    ])
    func aTokenSecretUnder32BytesIsAUsageErrorThatSaysSo(arguments: [String], environment: [String: String]) throws {
        let message = try failure(arguments, environment: environment)
        #expect(message.contains("at least 32"), "\(message)")
        #expect(StreamPreviewCLI.main(arguments: arguments, environment: environment) == .usage)
    }

    @Test func aSecretOf32BytesOrMoreIsTakenFromTheFlagOrTheEnvironment() throws {
        let fromEnvironment = try Command.parse(["serve"], environment: ["STREAMPREVIEW_TOKEN_SECRET": secret40]).get()
        var expected = ServeOptions()
        expected.tokens.source = .value(secret40)
        #expect(fromEnvironment == .serve(expected))
        let exactly32 = String(repeating: "y", count: 32)
        let fromFlag = try Command.parse(
            ["serve", "--token-secret", exactly32], environment: ["STREAMPREVIEW_TOKEN_SECRET": secret40]
        ).get()
        expected.tokens.source = .value(exactly32)
        #expect(fromFlag == .serve(expected))
    }

    @Test func aSecretFileAndAKeysFileAreNamedByFlagOrEnvironment() throws {
        let parsed = try Command.parse(
            ["serve", "--token-keys-file", "/etc/sp/keys"],
            environment: ["STREAMPREVIEW_TOKEN_SECRET_FILE": "/run/secrets/token"]
        ).get()
        var expected = ServeOptions()
        expected.tokens.source = .file("/run/secrets/token")
        expected.tokens.keysFile = "/etc/sp/keys"
        #expect(parsed == .serve(expected))
    }

    @Test(arguments: [
        (
            ["serve", "--token-secret", String(repeating: "x", count: 32), "--token-secret-file", "/f"],
            [String: String]()
        ),
        (["serve", "--token-secret-file", "/f"], ["STREAMPREVIEW_TOKEN_SECRET": String(repeating: "x", count: 32)]),
    ])
    func aSecretValueAndASecretFileTogetherAreRefused(arguments: [String], environment: [String: String]) throws {
        #expect(try failure(arguments, environment: environment).contains("not both"))
    }

    @Test func serveTakesTheMaximumTokenLifetimeAndPendingUploadLimit() throws {
        let fromEnvironment = try Command.parse(
            ["serve"],
            environment: ["STREAMPREVIEW_MAX_TOKEN_LIFETIME": "3600", "STREAMPREVIEW_MAX_PENDING_UPLOADS": "3"]
        ).get()
        var expected = ServeOptions()
        expected.tokens.maxLifetime = 3600
        expected.policy.maxPendingUploads = 3
        #expect(fromEnvironment == .serve(expected))
        #expect(ServeOptions().tokens.maxLifetime == 86400)
        #expect(ServeOptions().policy.maxPendingUploads == 8)
        for bad in [["--max-token-lifetime", "0"], ["--max-pending-uploads", "0"], ["--max-pending-uploads", "x"]] {
            _ = try failure(["serve"] + bad)
        }
    }

    @Test func tokenRefusesToMintATokenLivingLongerThanTheMaximum() throws {
        #expect(try failure(["token", "--sub", "a", "--ttl", "86401"]).contains("maximum token lifetime"))
        #expect(
            try failure(
                ["token", "--sub", "a", "--ttl", "601"], environment: ["STREAMPREVIEW_MAX_TOKEN_LIFETIME": "600"]
            )
            .contains("600"))
        let capped = try Command.parse(["token", "--sub", "a", "--max-token-lifetime", "600"], environment: [:]).get()
        var expected = TokenOptions()
        expected.subject = "a"
        expected.ttl = 600
        expected.tokens.maxLifetime = 600
        #expect(capped == .token(expected), "the default TTL is the maximum")
    }

    @Test func tokenKidNeedsAKeysFile() throws {
        #expect(try failure(["token", "--sub", "a", "--kid", "k1"]).contains("--token-keys-file"))
        let parsed = try Command.parse(
            ["token", "--sub", "a", "--kid", "k1"], environment: ["STREAMPREVIEW_TOKEN_KEYS_FILE": "/k"]
        ).get()
        var expected = TokenOptions()
        expected.subject = "a"
        expected.kid = "k1"
        expected.tokens.keysFile = "/k"
        #expect(parsed == .token(expected))
    }

    @Test func uploadTakesItsTokenFromTheEnvironmentOrAFile() throws {
        let tail = ["--server", "http://127.0.0.1:1", "--stream", "42", "c.mp4", "t.jpg"]
        let fromEnvironment = try Command.parse(["upload"] + tail, environment: ["STREAMPREVIEW_TOKEN": "tok"]).get()
        guard case .upload(let viaVariable) = fromEnvironment else { throw UsageError("not upload") }
        #expect(viaVariable.uploader.token == "tok" && viaVariable.uploader.tokenFile == nil)
        let fromFile = try Command.parse(["upload", "--token-file", "/t"] + tail, environment: [:]).get()
        guard case .upload(let viaFile) = fromFile else { throw UsageError("not upload") }
        #expect(viaFile.uploader.token.isEmpty && viaFile.uploader.tokenFile == "/t")
        #expect(try failure(["upload"] + tail).contains("bearer token is required"))
        #expect(try failure(["upload", "--token", "a", "--token-file", "/t"] + tail).contains("not both"))
    }

    @Test(arguments: [
        ("serve", ["token-secret"]), ("token", ["token-secret"]), ("upload", ["token"]),
    ])
    func flagsTakingSecretsSayTheyShowInPs(command: String, flags: [String]) throws {
        let parsed = try Command.parse([command, "--help"], environment: [:]).get()
        guard case .help(let text) = parsed else { throw UsageError("\(command) --help is not help") }
        for flag in flags {
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("  --\(flag) ") })
            #expect(line.contains("shows in ps"), "\(line)")
        }
        #expect(text.contains("_FILE") || text.contains("--token-file"))
    }

    // MARK: files (in process: `token` reads them before signing anything)

    @Test func anEmptyShortOrMissingSecretFileStopsTokenWithExit78() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-secret")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let empty = directory + "/empty", short = directory + "/short", blank = directory + "/blank"
        try Data().write(to: URL(fileURLWithPath: empty))
        try Data("0123456789\n".utf8).write(to: URL(fileURLWithPath: short))
        try Data(" \n\n".utf8).write(to: URL(fileURLWithPath: blank))
        let fifo = directory + "/fifo"
        #expect(mkfifo(fifo, 0o600) == 0, "a FIFO must be refused, not waited on")
        for file in [empty, short, blank, directory + "/missing", directory, fifo] {
            let code = StreamPreviewCLI.main(
                arguments: ["token", "--sub", "a", "--token-secret-file", file], environment: [:])
            #expect(code == .config, "\(file)")
        }
        let good = directory + "/good"
        try Data((secret40 + "\n").utf8).write(to: URL(fileURLWithPath: good))
        #expect(
            StreamPreviewCLI.main(arguments: ["token", "--sub", "a", "--token-secret-file", good], environment: [:])
                == .ok)
    }

    @Test func anEmptyTokenSecretInTheDataDirIsRefusedAndKept() throws {
        let directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-secret")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data().write(to: URL(fileURLWithPath: directory + "/token-secret"))
        #expect(
            StreamPreviewCLI.main(arguments: ["token", "--sub", "a", "--data-dir", directory], environment: [:])
                == .config)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory + "/token-secret")).isEmpty, "not regenerated")
    }

    @Test func aMissingTokenSecretIsCreatedMode0600InAPrivateDataDir() throws {
        let parent = try TestPaths.makeTemporaryDirectory(prefix: "sp-secret")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let data = try DataDirectory(path: parent + "/data")
        let secret = try data.secret(named: "token-secret")
        #expect(secret.count == 64 && secret.allSatisfy { Character(Unicode.Scalar($0)).isHexDigit })
        #expect(try data.secret(named: "token-secret") == secret, "read back, not replaced")
        #expect(try mode(data.path) == 0o700)
        #expect(try mode(data.path + "/token-secret") == 0o600)
        let names = try FileManager.default.contentsOfDirectory(atPath: data.path)
        #expect(names == ["token-secret"], "no temporary file left behind")
    }

    @Test func anExistingDataDirOpenToOthersIsMadePrivate() throws {
        let parent = try TestPaths.makeTemporaryDirectory(prefix: "sp-secret")
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let path = parent + "/data"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(chmod(path, 0o755) == 0)
        _ = try DataDirectory(path: path)
        #expect(try mode(path) == 0o700)
    }

    func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int)
    }
}

/// `upload`'s and `capture`'s `--title`, `--category`, `--language`, `--mature`, `--alt-text`.
@Suite struct UploadDetailsOptionsTests {
    static let tail = ["--server", "http://127.0.0.1:1", "--stream", "42", "--token", "t", "c.mp4", "t.jpg"]

    @Test func theDetailsAreParsedWithTheLanguageInCanonicalCase() throws {
        let parsed = try Command.parse(
            [
                "upload", "--title", "Jam", "--category", "music", "--language", "en-us", "--mature", "--alt-text",
                "Keys",
            ]
                + Self.tail, environment: [:]
        ).get()
        guard case .upload(let options) = parsed else { throw UsageError("not upload") }
        #expect(
            options.uploader.details
                == PreviewDetails(title: "Jam", category: "music", language: "en-US", mature: true, altText: "Keys"))
        guard case .upload(let plain) = try Command.parse(["upload"] + Self.tail, environment: [:]).get() else {
            throw UsageError("not upload")
        }
        #expect(plain.uploader.details == PreviewDetails())
    }

    @Test(arguments: [
        (["--category", "Music"], "--category: category must be"),
        (["--language", "english!"], "--language: language"),
        (["--alt-text", "a\u{1}"], "--alt-text: altText must not contain control characters"),
        (["--mature=maybe"], "--mature takes true or false"),
    ])
    func aBadDetailIsAUsageErrorBeforeAnythingIsSent(flags: [String], said: String) {
        guard case .failure(let error) = Command.parse(["upload"] + flags + Self.tail, environment: [:]) else {
            Issue.record("accepted \(flags)")
            return
        }
        #expect(error.message.contains(said), "\(error.message)")
    }
}

import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite struct CommandTests {
    @Test func serveRunsOnTheEmbeddedDefaultsWithNothingGiven() throws {
        #expect(try Command.parse(["serve"], environment: [:]).get() == .serve(ServeOptions()))
    }

    @Test func flagsOverrideTheEnvironmentWhichOverridesDefaults() throws {
        let environment = [
            "STREAMPREVIEW_PORT": "9000", "STREAMPREVIEW_REDIS_URL": "redis://10.0.0.1:6379/2",
            "STREAMPREVIEW_PREVIEW_TTL": "30",
        ]
        let fromEnvironment = try #require(serveOptions(Command.parse(["serve"], environment: environment)))
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.redisURL == "redis://10.0.0.1:6379/2")
        #expect(fromEnvironment.policy.previewTTL == 30)
        let fromFlags = try #require(
            serveOptions(
                Command.parse(
                    [
                        "serve", "--port", "0", "--preview-ttl=45", "--upload-url-ttl", "60", "--public-base-url",
                        "https://cdn.example/p/",
                    ],
                    environment: environment)))
        #expect(fromFlags.port == 0)
        #expect(fromFlags.policy.previewTTL == 45)
        #expect(fromFlags.policy.uploadURLTTL == 60)
        #expect(fromFlags.publicBaseURL == "https://cdn.example/p")
        #expect(fromFlags.redisURL == "redis://10.0.0.1:6379/2")
    }

    @Test(arguments: [
        ["serve", "--port", "abc"], ["serve", "--port", "70000"], ["serve", "--nope"], ["serve", "--port"],
        ["serve", "--preview-ttl", "0"], ["serve", "--public-url", "ftp://x"], ["serve", "extra"],
        ["serve", "--port", "1", "--port", "2"], ["token"], ["token", "--sub", "a", "--role", "king"],
        ["token", "--sub", "a", "--role", "streamer"], ["token", "--sub", "a", "--stream", "x"],
        ["upload", "--server", "http://x", "--token", "t", "--stream", "1", "only-one-file"], ["frobnicate"],
    ])
    func badCommandLinesAreUsageErrors(_ arguments: [String]) throws {
        let result = Command.parse(arguments, environment: [:])
        let error = try #require(result.failure, "accepted \(arguments)")
        #expect(!error.message.isEmpty)
    }

    @Test func everyCommandHasHelp() throws {
        for command in ["serve", "token", "upload", "presign"] {
            let text = try #require(helpText(Command.parse([command, "--help"], environment: [:])), "\(command)")
            #expect(text.contains("Usage: streampreview \(command)"))
        }
        let text = try #require(helpText(Command.parse([], environment: [:])))
        #expect(text.contains("serve") && text.contains("token") && text.contains("upload"))
    }

    @Test func serveHelpListsEveryOptionAndItsVariable() throws {
        let text = try #require(helpText(Command.parse(["serve", "--help"], environment: [:])))
        #expect(text.contains("Usage: streampreview serve"))
        for spec in ServeOptions.specs {
            #expect(text.contains("--\(spec.flag)"))
            if let variable = spec.environment { #expect(text.contains(variable)) }
        }
        #expect(text.contains("STREAMPREVIEW_TEST_CLOCK_FILE") && text.contains("tests only"))
    }

    @Test func tokenTakesRepeatedStreams() throws {
        let parsed = try Command.parse(
            ["token", "--sub", "alice", "--role", "streamer", "--stream", "42", "--stream", "7", "--ttl", "60"],
            environment: [:]
        ).get()
        var expected = TokenOptions()
        expected.subject = "alice"
        expected.role = .streamer
        expected.streamIds = [42, 7]
        expected.ttl = 60
        #expect(parsed == .token(expected))
    }

    @Test func tokenRefusesToMintWhatTheServerWouldRefuse() throws {
        let fits = try Command.parse(["token", "--sub", String(repeating: "s", count: 255)], environment: [:]).get()
        guard case .token(let options) = fits else { throw UsageError("not token") }
        #expect(options.subject.utf8.count == 255)
        let long = Command.parse(["token", "--sub", String(repeating: "s", count: 256)], environment: [:])
        #expect(long.failure?.message == "--sub is longer than 255 bytes; the server would refuse the token")
        let streams = (1...1001).flatMap { ["--stream", String($0)] }
        let many = Command.parse(["token", "--sub", "a", "--role", "streamer"] + streams, environment: [:])
        #expect(many.failure?.message == "more than 1000 --stream; the server would refuse the token")
        _ = try Command.parse(["token", "--sub", "a", "--role", "streamer"] + streams.dropLast(2), environment: [:])
            .get()
    }

    @Test(arguments: ["a\u{1B}[2J", "line\nbreak", "\u{202E}evil", "idp:x", "idp:"])
    func tokenRefusesSubjectsTheServerWouldRefuse(sub: String) throws {
        let error = try #require(Command.parse(["token", "--sub", sub], environment: [:]).failure)
        #expect(error.message.hasPrefix("--sub must not hold control or bidirectional characters"), "\(error)")
    }

    /// The text of a `.help` parse, nil for anything else.
    private func helpText(_ parsed: Result<Command, UsageError>) -> String? {
        if case .success(.help(let text)) = parsed { return text }
        return nil
    }

    /// The options of a `.serve` parse, nil for anything else.
    private func serveOptions(_ parsed: Result<Command, UsageError>) -> ServeOptions? {
        if case .success(.serve(let options)) = parsed { return options }
        return nil
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

import PreviewCore
import Testing

@testable import PreviewApp

@Suite struct CommandTests {
    @Test func serveRunsOnTheEmbeddedDefaultsWithNothingGiven() throws {
        #expect(try Command.parse(["serve"], environment: [:]).get() == .serve(ServeOptions()))
    }

    @Test func flagsOverrideTheEnvironmentWhichOverridesDefaults() throws {
        let environment = [
            "STREAMPREVIEW_PORT": "9000", "STREAMPREVIEW_REDIS_URL": "redis://10.0.0.1:6379/2",
            "STREAMPREVIEW_PREVIEW_TTL": "30",
        ]
        guard case .serve(let fromEnvironment) = try Command.parse(["serve"], environment: environment).get() else {
            Issue.record("not serve")
            return
        }
        #expect(fromEnvironment.port == 9000)
        #expect(fromEnvironment.redisURL == "redis://10.0.0.1:6379/2")
        #expect(fromEnvironment.policy.previewTTL == 30)
        guard
            case .serve(let fromFlags) = try Command.parse(
                [
                    "serve", "--port", "0", "--preview-ttl=45", "--upload-url-ttl", "60", "--public-base-url",
                    "https://cdn.example/p/",
                ],
                environment: environment
            ).get()
        else {
            Issue.record("not serve")
            return
        }
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
    func badCommandLinesAreUsageErrors(_ arguments: [String]) {
        guard case .failure(let error) = Command.parse(arguments, environment: [:]) else {
            Issue.record("accepted \(arguments)")
            return
        }
        #expect(!error.message.isEmpty)
    }

    @Test func everyCommandHasHelp() throws {
        for command in ["serve", "token", "upload"] {
            guard case .help(let text) = try Command.parse([command, "--help"], environment: [:]).get() else {
                Issue.record("\(command) --help")
                continue
            }
            #expect(text.contains("Usage: streampreview \(command)"))
        }
        guard case .help(let text) = try Command.parse([], environment: [:]).get() else {
            Issue.record("no help")
            return
        }
        #expect(text.contains("serve") && text.contains("token") && text.contains("upload"))
    }

    @Test func serveHelpListsEveryOptionAndItsVariable() throws {
        guard case .help(let text) = try Command.parse(["serve", "--help"], environment: [:]).get() else { return }
        for spec in ServeOptions.specs {
            #expect(text.contains("--\(spec.flag)"))
            if let variable = spec.environment { #expect(text.contains(variable)) }
        }
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
}

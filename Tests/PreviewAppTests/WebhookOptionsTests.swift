import Foundation
import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

@Suite("Webhooks: options and the webhooks command")
struct WebhookOptionsTests {
    func serve(_ arguments: [String], environment: [String: String] = [:]) -> Result<Command, UsageError> {
        Command.parse(["serve"] + arguments, environment: environment)
    }

    func webhooks(_ result: Result<Command, UsageError>) throws -> WebhookOptions {
        guard case .success(.serve(let options)) = result else {
            Issue.record("not a serve command: \(result)")
            throw UsageError("not serve")
        }
        return options.webhooks
    }

    func usageError(_ result: Result<Command, UsageError>) -> String? {
        if case .failure(let error) = result { return error.message }
        return nil
    }

    @Test("URLs repeat as flags or come comma-separated from the environment; the other flags have defaults")
    func parse() throws {
        let options = try webhooks(
            serve([
                "--webhook-url", "https://a.example/h", "--webhook-url", "http://127.0.0.1:9/b",
                "--webhook-secret-file",
                "/run/s", "--webhook-timeout", "3", "--webhook-max-age", "60", "--webhook-retry-delay", "2",
                "--webhook-concurrency", "0", "--webhook-backlog-per-stream", "50",
            ]))
        #expect(options.urls == ["https://a.example/h", "http://127.0.0.1:9/b"])
        #expect(options.secretFile == "/run/s" && options.timeoutSeconds == 3 && options.maxAgeSeconds == 60)
        #expect(options.retryDelaySeconds == 2 && options.concurrency == 0 && options.backlogPerStream == 50)
        #expect(options.retryPolicy.claimIdleMilliseconds(afterAttempts: 1) == 5000, "timeout 3 + 2 s")
        let fromEnvironment = try webhooks(
            serve(
                [],
                environment: [
                    "STREAMPREVIEW_WEBHOOK_URL": "https://a.example/h,https://b.example/h",
                    "STREAMPREVIEW_WEBHOOK_SECRET_FILE": "/run/s", "STREAMPREVIEW_WEBHOOK_BACKLOG_PER_STREAM": "7",
                ]))
        #expect(fromEnvironment.urls.count == 2 && fromEnvironment.concurrency == 4)
        #expect(fromEnvironment.backlogPerStream == 7)
        #expect(try webhooks(serve([])).backlogPerStream == 1000)
        #expect(fromEnvironment.timeoutSeconds == 10 && fromEnvironment.maxAgeSeconds == 86400)
        #expect(try !webhooks(serve([])).isConfigured)
    }

    @Test(
        "a URL without a secret file, a bad or repeated URL, and out-of-range numbers are usage errors",
        arguments: [
            ["--webhook-url", "https://a.example/h"],
            ["--webhook-url", "ftp://a.example/h", "--webhook-secret-file", "/s"],
            ["--webhook-url", "https://a.example/ h", "--webhook-secret-file", "/s"],
            [
                "--webhook-url", "https://a.example/h", "--webhook-url", "https://a.example/h", "--webhook-secret-file",
                "/s",
            ],
            ["--webhook-timeout", "0"], ["--webhook-concurrency", "65"], ["--webhook-max-age", "0"],
            ["--webhook-backlog-per-stream", "0"], ["--webhook-backlog-per-stream", "100001"],
        ])
    func refused(_ arguments: [String]) {
        #expect(usageError(serve(arguments)) != nil, "\(arguments)")
    }

    @Test("the secret file holds one secret per line, each at least 32 bytes; a weak one stops the start")
    func secrets() throws {
        let folder = NSTemporaryDirectory() + "sp-whopt-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var options = WebhookOptions()
        options.urls = ["https://a.example/h"]
        options.secretFile = folder + "/s"
        let current = String(repeating: "a", count: 32)
        let previous = String(repeating: "b", count: 40)
        try Data("\(current)\r\n\n  \(previous)  \n".utf8).write(to: URL(fileURLWithPath: folder + "/s"))
        #expect(try options.loadSecrets() == [Array(current.utf8), Array(previous.utf8)])
        try Data("\(current)\nshort\n".utf8).write(to: URL(fileURLWithPath: folder + "/s"))
        #expect(throws: AppError.self) { try options.loadSecrets() }
        options.urls = []
        #expect(try options.loadSecrets().isEmpty, "not read without a URL")
    }

    @Test("sweep takes the same webhook flags")
    func sweepTakesThem() throws {
        guard
            case .success(.sweep(let options)) = Command.parse(
                ["sweep", "--webhook-url", "https://a.example/h", "--webhook-secret-file", "/s"], environment: [:])
        else {
            Issue.record("sweep refused the webhook flags")
            return
        }
        #expect(options.webhooks.urls == ["https://a.example/h"])
    }

    @Test("'webhooks dead' and 'webhooks replay ID... | --all' parse; anything else is a usage error")
    func webhooksCommand() throws {
        guard
            case .success(.webhooks(let dead)) = Command.parse(["webhooks", "dead", "--limit", "5"], environment: [:])
        else {
            Issue.record("dead refused")
            return
        }
        #expect(dead.action == .dead && dead.limit == 5)
        guard
            case .success(.webhooks(let replay)) = Command.parse(
                ["webhooks", "replay", "1764756000000-0", "1764756000001-3"], environment: [:])
        else {
            Issue.record("replay refused")
            return
        }
        #expect(replay.action == .replay(ids: ["1764756000000-0", "1764756000001-3"]))
        guard case .success(.webhooks(let all)) = Command.parse(["webhooks", "replay", "--all"], environment: [:])
        else {
            Issue.record("replay --all refused")
            return
        }
        #expect(all.action == .replay(ids: []))
        for arguments in [
            ["webhooks"], ["webhooks", "purge"], ["webhooks", "replay"], ["webhooks", "replay", "x-1"],
            ["webhooks", "replay", "1-0", "--all"], ["webhooks", "dead", "1-0"],
        ] {
            #expect(usageError(Command.parse(arguments, environment: [:])) != nil, "\(arguments)")
        }
        guard case .success(.help(let text)) = Command.parse(["webhooks", "--help"], environment: [:]) else {
            Issue.record("no help")
            return
        }
        #expect(text.contains("Usage: streampreview webhooks dead"))
    }
}

import PreviewCore
import PreviewRedis
import PreviewServer

/// `streampreview webhooks dead|replay`: lists the dead letters, or puts them back for delivery.
enum WebhooksCommand {
    static func run(_ options: WebhooksOptions) throws -> ExitCode {
        var sweep = SweepOptions()
        sweep.dataDirectory = options.dataDirectory
        sweep.redisURL = options.redisURL
        let data = try DataDirectory(path: options.dataDirectory)
        let target = try SweepCommand.redisTarget(sweep, data: data)
        let store = PreviewStore(
            client: target.client(maxIdle: 1, commandTimeout: 10), keys: RedisKeys(prefix: options.keyPrefix))
        do {
            switch options.action {
            case .dead:
                for letter in try store.webhookDeadLetters(limit: options.limit) { print(line(letter)) }
                return .ok
            case .replay(let ids):
                return try replay(ids, store: store, options: options)
            }
        } catch let error as RedisError {
            throw AppError("Redis failed: \(error)", exitCode: .unavailable)
        }
    }

    private static func replay(_ ids: [String], store: PreviewStore, options: WebhooksOptions) throws -> ExitCode {
        let letters: [PreviewStore.DeadLetter?] =
            ids.isEmpty
            ? try store.webhookDeadLetters(limit: options.limit) : try ids.map { try store.webhookDeadLetter(id: $0) }
        var replayed = 0
        var missing = 0
        let deadline = WallClock.now() + options.maxAgeSeconds
        for (index, letter) in letters.enumerated() {
            guard let letter, try store.replayDeadLetter(letter, deadline: deadline) else {
                missing += 1
                let id = index < ids.count ? ids[index] : letters[index]?.id ?? ""
                print("missing \(id)")
                continue
            }
            replayed += 1
            print("replayed \(letter.id) event=\(LogfmtValue.quoted(letter.fields[WebhookEvent.Field.id] ?? ""))")
        }
        print("replayed=\(replayed) missing=\(missing)")
        return missing == 0 ? .ok : .failure
    }

    /// `ID event=... type=... stream=... version=... url=... attempts=... dead_at=... error="..."`.
    static func line(_ letter: PreviewStore.DeadLetter) -> String {
        let fields = letter.fields
        let pairs: [(String, String)] = [
            ("event", fields[WebhookEvent.Field.id] ?? ""), ("type", fields[WebhookEvent.Field.type] ?? ""),
            ("stream", fields[WebhookEvent.Field.streamId] ?? ""),
            ("version", fields[WebhookEvent.Field.previewVersion] ?? ""),
            ("url", WebhookEndpoint.redacted(fields["url"] ?? "")), ("attempts", fields["attempts"] ?? ""),
            ("dead_at", fields["deadAt"] ?? ""), ("error", fields["lastError"] ?? ""),
        ]
        return ([letter.id] + pairs.map { "\($0.0)=\(LogfmtValue.quoted($0.1))" }).joined(separator: " ")
    }
}

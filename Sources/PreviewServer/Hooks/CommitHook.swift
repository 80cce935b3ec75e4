package import PreviewCore
import PreviewHTTPClient
import Synchronization

/// `--commit-hook-url`: the operator's moderation service, asked before every publish. Commit
/// POSTs a signed `CommitHookCall` (the `StreamPreview-Signature` header of `WebhookSignature`,
/// one `v1` per secret) with short-lived GET URLs of both objects, and waits for the verdict
/// within the timeout: allowed publishes (with the hook's labels), refused is 422
/// `rejected_by_hook` and is remembered with the upload. A hook that is down (no answer in time,
/// no connection, an answer that is not a verdict) is 503 `hook_unavailable` with
/// `Retry-After`, or with `failOpen` publishes without labels.
///
/// The call holds the commit's worker thread for up to the timeout, and the same workers serve
/// the local store's objects, so calls take turns (`CommitHookTurns`): a few at once, one per
/// upload and per subject, and a commit without a turn is `busy`, which is never failed open:
/// the caller may have filled the turns itself. No retries: the client retries the commit.
package final class CommitHook: Sendable {
    package struct Settings: Sendable, Equatable {
        var url: String
        package var timeoutSeconds: Int64 = 5
        package var failOpen = false
        /// Ask again when an upload the hook refused is committed again, instead of answering
        /// the remembered refusal.
        package var recheckRefused = false
        package var maxConcurrentCalls = 4
        /// Commits that may wait for a turn at once.
        package var maxWaiting = 2

        package init(url: String) { self.url = url }
    }

    /// How one commit's review ended, as counted in `/metrics`: asked (`allowed`, `refused`,
    /// `error`, `timeout`), or not asked (`busy`: no turn; `remembered`: refused before).
    enum Outcome: String, Sendable, CaseIterable {
        case allowed, refused, error, timeout, busy, remembered
    }

    /// What the hook decided about an upload.
    enum Decision: Sendable, Equatable {
        case publish(labels: [String: String])
        case refuse(reason: String)
    }

    /// Seconds the objects' GET URLs outlive the call, so a hook may fetch them after it answered
    /// (for a second look, or to keep a copy).
    static let urlSlackSeconds: Int64 = 300

    let settings: Settings
    private let keys: [any HMACKey]
    private let storage: any ObjectStorage
    let metrics: CommitHookMetrics
    let turns: CommitHookTurns
    private let idle = Mutex<[IdleHTTPClient]>([])

    /// `keys`: one per secret, the current one first; every call carries a signature by each.
    package init(settings: Settings, keys: [any HMACKey], storage: any ObjectStorage, metrics: CommitHookMetrics) {
        self.settings = settings
        self.keys = keys
        self.storage = storage
        self.metrics = metrics
        // Up to the timeout and a second: by then every call in flight when it began has ended.
        let turns = CommitHookTurns(
            limits: .init(
                calls: settings.maxConcurrentCalls, waiting: settings.maxWaiting,
                maxWaitSeconds: Double(settings.timeoutSeconds + 1)))
        self.turns = turns
        metrics.readTurns { turns.counts }
    }

    /// The answer to a commit of an upload the hook refused: 422 with its reason.
    static func refusal(_ reason: String) -> APIError {
        APIError(.rejectedByHook, reason.isEmpty ? "the moderation hook refused this preview" : reason)
    }

    /// Runs `body` (which asks the hook and publishes) in a turn of the upload's own, waiting
    /// for one if need be; without a turn it is 503 `hook_unavailable`, whatever `failOpen` says.
    func withTurn<T>(streamId: Int64, uploadId: String, subject: String, _ body: () throws -> T) throws -> T {
        let claim = CommitHookTurns.Claim(upload: uploadId, subject: subject)
        switch turns.take(claim) {
        case .granted(let waited):
            if let waited { metrics.recordWait(nanoseconds: waited) }
        case .refused(let refusal, let waited):
            if let waited { metrics.recordWait(nanoseconds: waited) }
            metrics.record(.busy, nanoseconds: nil)
            Log.warn(
                "commit_hook_failed",
                [
                    "stream_id": String(streamId), "upload_id": uploadId, "outcome": Outcome.busy.rawValue,
                    "error": refusal.rawValue, "fail_open": "false",
                ])
            throw APIError(.hookUnavailable, Self.message(refusal), retryAfter: settings.timeoutSeconds)
        }
        defer { turns.release(claim) }
        return try body()
    }

    private static func message(_ refusal: CommitHookTurns.Refusal) -> String {
        switch refusal {
        case .uploadWaiting:
            return "another commit of this upload is already waiting for the moderation hook; retry shortly"
        case .subjectWaiting:
            return "another of your commits is already waiting for the moderation hook; retry shortly"
        case .roomFull, .waitedOut:
            return "the moderation hook is busy with other commits; retry shortly"
        }
    }

    /// Asks the hook about `pending`, whose objects commit has verified, in a turn of
    /// `withTurn`. A failure is thrown as 503 `hook_unavailable`, or with `failOpen` publishes
    /// without labels, unless the hook refused this upload before (`--commit-hook-recheck-refused`).
    func review(
        _ pending: PendingUpload, subject: String, movieBytes: Int64, thumbnailBytes: Int64, clip: MP4Info, now: Int64
    ) throws -> Decision {
        let expiresIn = settings.timeoutSeconds + Self.urlSlackSeconds
        let call = CommitHookCall(
            streamId: pending.streamId, uploadId: pending.uploadId, subject: subject,
            movie: .init(
                url: try storage.privateDownloadURL(key: pending.movieKey, now: now, expiresIn: expiresIn),
                contentType: pending.movie.type.rawValue, bytes: movieBytes),
            thumbnail: .init(
                url: try storage.privateDownloadURL(key: pending.thumbnailKey, now: now, expiresIn: expiresIn),
                contentType: pending.thumbnail.type.rawValue, bytes: thumbnailBytes),
            durationMs: clip.durationMs, width: clip.width, height: clip.height, urlsExpireAt: now + expiresIn,
            details: pending.details)
        switch ask(call, now: now) {
        case .success(.allow(let labels)):
            return .publish(labels: labels)
        case .success(.refuse(let reason)):
            Log.warn(
                "commit_hook_refused",
                ["stream_id": String(pending.streamId), "upload_id": pending.uploadId, "reason": reason])
            return .refuse(reason: reason)
        case .failure(let failure):
            // A refusal stands until the hook says otherwise: a failed second look never publishes.
            let failsOpen = settings.failOpen && pending.hookRefusal == nil
            Log.warn(
                "commit_hook_failed",
                [
                    "stream_id": String(pending.streamId), "upload_id": pending.uploadId,
                    "outcome": failure.outcome.rawValue, "error": failure.description,
                    "fail_open": failsOpen ? "true" : "false",
                ])
            if failsOpen {
                metrics.recordFailedOpen()
                return .publish(labels: [:])
            }
            throw APIError(
                .hookUnavailable,
                "the moderation hook gave no verdict on this preview (\(failure.outcome.rawValue)); retry shortly",
                retryAfter: settings.timeoutSeconds)
        }
    }

    /// One call and its verdict, counted by outcome.
    private func ask(_ call: CommitHookCall, now: Int64) -> Result<CommitHookVerdict, Failure> {
        let started = ContinuousClock.now
        let result = send(call, now: now)
        let nanoseconds = started.duration(to: .now).metricNanoseconds
        switch result {
        case .success(.allow): metrics.record(.allowed, nanoseconds: nanoseconds)
        case .success(.refuse): metrics.record(.refused, nanoseconds: nanoseconds)
        case .failure(let failure): metrics.record(failure.outcome, nanoseconds: nanoseconds)
        }
        return result
    }

    private func send(_ call: CommitHookCall, now: Int64) -> Result<CommitHookVerdict, Failure> {
        let body = call.jsonBytes()
        var request = HTTPClientRequest(method: "POST", url: settings.url, body: .bytes(body))
        request.headers.add("Content-Type", "application/json")
        request.headers.add("Accept", "application/json")
        request.headers.add("User-Agent", "streampreview/\(BuildInfo.version)")
        request.headers.add(
            WebhookSignature.headerName, WebhookSignature.sign(body: body, timestamp: now, keys: keys).headerValue)
        request.timeoutSeconds = Double(settings.timeoutSeconds)
        request.maxResponseBodyBytes = CommitHookAnswer.maxBodyBytes
        let response: HTTPClientResponse
        do {
            response = try withClient { try $0.send(request) }
        } catch let error as HTTPClientError {
            return .failure(Failure(outcome: error.kind == .timeout ? .timeout : .error, description: "\(error)"))
        } catch {
            return .failure(Failure(outcome: .error, description: "\(error)"))
        }
        return CommitHookAnswer.parse(status: response.status, body: response.body).mapError {
            Failure(outcome: .error, description: $0.description)
        }
    }

    /// Runs `body` with a client no other thread uses meanwhile; it goes back to the pool
    /// unless the exchange failed below HTTP (its connection may be bad).
    private func withClient<T>(_ body: (HTTPClient) throws -> T) throws -> T {
        let client = try idle.withLock { $0.popLast() }?.client ?? HTTPClient()
        let result = try body(client)
        idle.withLock { clients in
            if clients.count < settings.maxConcurrentCalls { clients.append(IdleHTTPClient(client: client)) }
        }
        return result
    }

    struct Failure: Error, CustomStringConvertible {
        var outcome: Outcome
        var description: String
    }
}

/// A client parked in the pool. `@unchecked Sendable` because `HTTPClient` is not thread-safe,
/// but a parked one belongs to no thread: it only moves in and out of the mutex-guarded list,
/// and `withClient` hands it to exactly one caller until that caller's exchange ends.
private struct IdleHTTPClient: @unchecked Sendable {
    let client: HTTPClient
}

import Foundation
package import PreviewCore
import PreviewHTTPClient
import Synchronization

/// Sends HEAD, ranged GET, DELETE and S3's DeleteObjects POST to an S3 or GCS bucket over
/// libcurl, authenticating each attempt by presigning it with the backend's own signer (query
/// auth, a short expiry), so no SDK or OAuth flow is involved and what goes over the wire is
/// exactly what was signed (`HTTPClient` sends the path as given).
///
/// Connections are reused through a small pool of `HTTPClient`s (one easy handle each, used
/// by one thread at a time). Attempts that fail with 5xx, 429, a timeout or a broken or
/// refused connection are retried by `RetryPolicy`; any other answer is returned as is.
package final class RemoteObjectClient: Sendable {
    package struct Configuration: Sendable {
        /// The limit of one attempt, connect included.
        var timeoutSeconds = 10.0
        var retry = RetryPolicy()
        /// `X-Amz-Expires` / `X-Goog-Expires` of the URLs this client signs for itself.
        var signedLifetimeSeconds = 120
        /// Idle `HTTPClient`s kept for reuse (about the number of worker threads).
        package var maxIdleClients = 8
        /// Where each request's latency and failure is counted (by method), when metrics are on.
        package var metrics: CallMetrics?

        package init() {}
    }

    /// The final answer of a request, and what it took to get it.
    struct Reply: Sendable {
        var response: HTTPClientResponse
        var attempts: Int
    }

    let signer: any ObjectURLSigner
    let bucket: String
    let configuration: Configuration
    private let clock: @Sendable () -> Int64
    private let sleep: @Sendable (Double) -> Void
    private let random: @Sendable () -> Double
    private let idle = Mutex<[IdleClient]>([])

    /// - Parameters:
    ///   - clock: Unix seconds, the signing time of each attempt.
    ///   - sleep, random: seams for the backoff (tests make them instant and fixed).
    package init(
        signer: any ObjectURLSigner, bucket: String, configuration: Configuration = Configuration(),
        clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        sleep: @escaping @Sendable (Double) -> Void = { usleep(UInt32(min($0, 60) * 1_000_000)) },
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.signer = signer
        self.bucket = bucket
        self.configuration = configuration
        self.clock = clock
        self.sleep = sleep
        self.random = random
    }

    /// Idle clients in the pool (for tests).
    var idleCount: Int { idle.withLock { $0.count } }

    /// Sends `method` for `key` with `headers` (unsigned: e.g. `Range`), retrying as the
    /// policy allows. Returns the final answer, whatever its status (the caller knows what a
    /// 404 means); throws `StorageError` when no answer came (timeouts, refused connections
    /// after the last attempt; `unreachable` when no connection could be made) or the request
    /// cannot be signed.
    func send(method: String, key: String, headers: [(String, String)] = []) throws -> Reply {
        try send(method: method, target: describe(key), headers: headers) { signingTime in
            try signer.presign(
                ObjectSignRequest(
                    method: method, bucket: bucket, key: key, expiresSeconds: configuration.signedLifetimeSeconds,
                    signingTime: signingTime))
        }
    }

    /// Sends `method` to the URL `sign` presigns for each attempt (given the signing time), with
    /// `headers` as given and `body`, under the same retry rules as `send(method:key:headers:)`.
    /// Only for idempotent requests (a retried DeleteObjects deletes nothing twice). `target`
    /// names the request in messages.
    func send(
        method: String, target: String, headers: [(String, String)] = [], body: HTTPClientRequest.Body = .none,
        sign: (Int64) throws -> String
    ) throws -> Reply {
        let started = ContinuousClock.now
        var failed = true
        defer {
            configuration.metrics?.record(
                method.lowercased(), nanoseconds: started.duration(to: .now).metricNanoseconds, failed: failed)
        }
        let reply = try attempts(method: method, target: target, headers: headers, body: body, sign: sign)
        failed = Self.isFailure(reply.response.status)
        return reply
    }

    /// An answer counted as a failed call: an error status other than the ones callers expect
    /// (404 absent, 412 precondition, 416 range past the end).
    static func isFailure(_ status: Int) -> Bool {
        status >= 400 && status != 404 && status != 412 && status != 416
    }

    private func attempts(
        method: String, target: String, headers: [(String, String)], body: HTTPClientRequest.Body,
        sign: (Int64) throws -> String
    ) throws -> Reply {
        let started = DispatchTime.now().uptimeNanoseconds
        var attempt = 0
        while true {
            attempt += 1
            let url: String
            do {
                url = try sign(clock())
            } catch {
                throw StorageError("cannot sign \(method) \(target): \(error)")
            }
            var request = HTTPClientRequest(method: method, url: url, headers: HTTPHeaders(headers), body: body)
            request.timeoutSeconds = configuration.timeoutSeconds
            let outcome: RetryPolicy.Outcome
            let failure: String
            do {
                let response = try withClient { try $0.send(request) }
                // A final status, or a retryable one when the policy says stop: the caller reads it.
                guard let wait = nextWait(.status(response.status), attempt: attempt, started: started) else {
                    return Reply(response: response, attempts: attempt)
                }
                sleep(wait)
                continue
            } catch let error as HTTPClientError {
                outcome = Self.outcome(of: error)
                failure = error.description
            }
            guard let wait = nextWait(outcome, attempt: attempt, started: started) else {
                let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
                throw StorageError(
                    "\(method) \(target) failed after \(attempt) attempt(s) in "
                        + "\(String(format: "%.1f", elapsed)) s: \(failure)", unreachable: outcome == .connect)
            }
            sleep(wait)
        }
    }

    /// `bucket/key` for messages.
    func describe(_ key: String) -> String { "\(bucket)/\(key)" }

    private func nextWait(_ outcome: RetryPolicy.Outcome, attempt: Int, started: UInt64) -> Double? {
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        return configuration.retry.retryDelay(after: outcome, attempt: attempt, elapsed: elapsed, random: random())
    }

    static func outcome(of error: HTTPClientError) -> RetryPolicy.Outcome { RetryPolicy.Outcome(error) }

    /// `503 SlowDown (Please reduce your request rate.)` or just `503`.
    static func describe(_ response: HTTPClientResponse) -> String {
        guard let body = StoreErrorBody.parse(response.body) else { return "HTTP \(response.status)" }
        var text = "HTTP \(response.status)"
        if let code = body.code { text += " \(code)" }
        if let message = body.message { text += " (\(message))" }
        return text
    }

    /// Runs `body` with a client no other thread uses meanwhile; the client goes back to the
    /// pool afterwards unless the exchange failed below HTTP (its connection may be bad).
    private func withClient<T>(_ body: (HTTPClient) throws -> T) throws -> T {
        let client: HTTPClient
        if let reused = idle.withLock({ $0.popLast() }) {
            client = reused.client
        } else {
            do { client = try HTTPClient() } catch let error as HTTPClientError {
                throw StorageError("cannot create an HTTP client: \(error)")
            }
        }
        let result = try body(client)
        let parked = IdleClient(client: client)
        idle.withLock { clients in
            if clients.count < configuration.maxIdleClients { clients.append(parked) }
        }
        return result
    }
}

/// A client parked in the pool. `@unchecked Sendable` because `HTTPClient` is not thread-safe,
/// but a parked one belongs to no thread: it only moves in and out of the mutex-guarded list,
/// and `withClient` hands it to exactly one caller until that caller's exchange ends.
private struct IdleClient: @unchecked Sendable {
    let client: HTTPClient
}

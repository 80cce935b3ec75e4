public import Foundation

/// What carries the client's API calls and uploads: `URLSession` by default
/// (`StreamPreviewClient.init(transport:)` left nil). An app or a command line with an HTTP
/// stack of its own (the `streampreview` binary uses libcurl) conforms to it, and the client's
/// retry rules, progress and errors stay the same whatever carries the bytes. The live event
/// stream (`events()`) always goes through the client's `URLSession`.
public protocol StreamPreviewTransport: Sendable {
    /// Sends `request` once and returns the whole answer, whatever its status. With no answer it
    /// throws a `TransportError` saying how the exchange broke (any other error counts as
    /// `.fatal`); a cancelled Swift task throws `CancellationError`. `onSent` gets the body bytes
    /// sent so far and the total, from any thread.
    func send(_ request: TransportRequest, onSent: (@Sendable (_ sent: Int64, _ total: Int64) -> Void)?)
        async throws -> TransportResponse
}

/// One HTTP request of the client.
public struct TransportRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    /// Header fields to send as they are (a signed PUT's are part of its signature).
    public var headers: [String: String]
    /// The body, for API calls.
    public var body: Data?
    /// A file sent as the body from its first byte (uploads), instead of `body`. Its own length
    /// is sent as `Content-Length`: a file that changed size since it was signed is refused.
    public var bodyFile: URL?
    /// Seconds one exchange may take; nil leaves it to the transport.
    public var timeout: Double?

    public init(
        method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, bodyFile: URL? = nil,
        timeout: Double? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyFile = bodyFile
        self.timeout = timeout
    }
}

/// One HTTP answer, read whole.
public struct TransportResponse: Sendable, Hashable {
    public var status: Int
    /// Field names in lower case (HTTP names are case-insensitive); a repeated field's values
    /// joined with `, `.
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { first, next in first + ", " + next
        }
        self.body = body
    }

    /// The value of the field `name`, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// How an exchange broke without an answer, as a transport reports it.
public struct TransportError: Error, Sendable, Hashable {
    /// `.connect`, `.timeout`, `.transfer` or `.fatal` (never `.status`).
    public var failure: StreamPreviewClientError.Failure
    /// A few words for a person: `connection reset`, `no answer within 120.0 s`.
    public var message: String

    public init(_ failure: StreamPreviewClientError.Failure, _ message: String) {
        self.failure = failure
        self.message = message
    }
}

/// The clocks, sleep and dice of the uploader's retries: the real ones by default. A command
/// line passes its own (a sleep a stop can cut short); tests make the waits instant.
public struct RetryClock: Sendable {
    /// Waits this many seconds (a cancelled task may end it early by throwing).
    public var sleep: @Sendable (Double) async throws -> Void
    /// In `0..<1`: picks each wait's jitter.
    public var random: @Sendable () -> Double
    /// Seconds on a monotonic clock, for the time retries have taken.
    public var monotonic: @Sendable () -> Double
    /// Unix seconds, to compare with a signed URL's `expiresAt` and to read a dated `Retry-After`.
    public var now: @Sendable () -> Double

    public init(
        sleep: @escaping @Sendable (Double) async throws -> Void, random: @escaping @Sendable () -> Double,
        monotonic: @escaping @Sendable () -> Double, now: @escaping @Sendable () -> Double
    ) {
        self.sleep = sleep
        self.random = random
        self.monotonic = monotonic
        self.now = now
    }

    /// `Task.sleep`, `Double.random`, `ContinuousClock` and `Date`.
    public static let system = RetryClock(
        sleep: { seconds in try await Task.sleep(nanoseconds: UInt64(max(seconds, 0) * 1e9)) },
        random: { Double.random(in: 0..<1) },
        monotonic: {
            let elapsed = ContinuousClock.now - startInstant
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        },
        now: { Date().timeIntervalSince1970 })

    private static let startInstant = ContinuousClock.now
}

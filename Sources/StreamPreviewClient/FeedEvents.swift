import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One change of the live feed (`GET /api/feed/events`).
public enum FeedChange: Sendable, Hashable {
    /// A preview was published or replaced (fresh signed URLs; `liked` and `seen` false).
    case preview(FeedItem)
    /// The stream's preview left the feed (ended, expired or deleted).
    case removed(streamId: Int64, previewVersion: Int64)
    /// The stream's like count changed.
    case likes(streamId: Int64, likes: Int64)
    /// The server no longer holds what this client missed: reload the feed.
    case reset
}

/// A change with its event ID (the position to resume from).
public struct FeedEvent: Sendable, Hashable {
    public var id: String?
    public var change: FeedChange

    public init(id: String?, change: FeedChange) {
        self.id = id
        self.change = change
    }
}

/// How the event stream reconnects.
public struct EventStreamOptions: Sendable, Hashable {
    /// Reconnections in a row that may fail (no 200) before the sequence throws the last error;
    /// nil: never give up (an app's screen that stays open).
    public var maxConsecutiveFailures: Int?
    /// The longest wait between reconnections.
    public var maxDelay: Double

    public init(maxConsecutiveFailures: Int? = nil, maxDelay: Double = 60) {
        self.maxConsecutiveFailures = maxConsecutiveFailures
        self.maxDelay = maxDelay
    }
}

extension StreamPreviewClient {
    /// The live changes of the feed. It reconnects by itself when the stream ends or breaks,
    /// with `Last-Event-ID`, so no change is missed or repeated; when the server cannot replay
    /// what was missed it yields `.reset` (reload the feed). Waits follow the server's `retry:`
    /// (and `Retry-After` of a 503 or 429), doubling with jitter up to `options.maxDelay`.
    /// `lastEventId`: where a previous sequence stopped. Anonymous: no token is sent.
    public func events(lastEventId: String? = nil, options: EventStreamOptions = EventStreamOptions()) -> FeedEvents {
        FeedEvents(client: self, lastEventId: lastEventId, options: options)
    }
}

/// The sequence of `events()`: each iteration holds its own connection.
public struct FeedEvents: AsyncSequence, Sendable {
    public typealias Element = FeedEvent
    let client: StreamPreviewClient
    let lastEventId: String?
    let options: EventStreamOptions

    public func makeAsyncIterator() -> Iterator {
        Iterator(client: client, lastEventId: lastEventId, options: options)
    }

    public struct Iterator: AsyncIteratorProtocol {
        let client: StreamPreviewClient
        let options: EventStreamOptions
        /// The ID of the last event handed out, sent as `Last-Event-ID` on reconnecting.
        public private(set) var lastEventId: String?
        private var parser = ServerSentEventParser()
        private var bytes: AsyncThrowingStream<Data, any Error>.AsyncIterator?
        private var failures = 0
        private var connected = false

        init(client: StreamPreviewClient, lastEventId: String?, options: EventStreamOptions) {
            self.client = client
            self.lastEventId = lastEventId
            self.options = options
        }

        public mutating func next() async throws -> FeedEvent? {
            while true {
                try Task.checkCancellation()
                while let event = parser.next() {
                    lastEventId = event.id ?? lastEventId
                    if let change = Self.change(of: event) { return FeedEvent(id: event.id, change: change) }
                }
                if bytes == nil {
                    try await connect()
                    continue
                }
                do {
                    if let chunk = try await bytes?.next() {
                        parser.feed(chunk)
                        continue
                    }
                } catch let error as URLError where error.code == .cancelled {
                    throw CancellationError()
                } catch {
                    // A broken connection: reconnect below.
                }
                try Task.checkCancellation()
                bytes = nil
                parser.dropPartial()
                try await wait(nil)
            }
        }

        /// Opens the stream, waiting and retrying while the server answers 429 or 5xx or cannot be reached.
        private mutating func connect() async throws {
            let label = "GET /api/feed/events"
            do {
                var request = try await client.apiRequest("GET", "/api/feed/events", authenticated: false)
                request.headers["Accept"] = "text/event-stream"
                if let lastEventId { request.headers["Last-Event-ID"] = lastEventId }
                request.timeout = 24 * 3600
                let (response, stream) = try await client.session.open(SessionTransport.urlRequest(request))
                var iterator = stream.makeAsyncIterator()
                if response.statusCode == 200 {
                    bytes = iterator
                    failures = 0
                    return
                }
                var body = Data()
                while body.count < 64 * 1024, let chunk = try await iterator.next() { body.append(chunk) }
                let error = StreamPreviewClientError(
                    SessionTransport.response(response, body: body), request: label, now: client.clock.now())
                guard UploadRetryPolicy.passes(error.failure) else { throw error }
                try await wait(error)
            } catch let error as URLError where error.code == .cancelled {
                throw CancellationError()
            } catch let error as URLError {
                try await wait(StreamPreviewClientError(TransportError(error), request: label))
            }
        }

        /// Waits before the next connection: the server's `retry:` doubled per failure in a row,
        /// jittered, at least the error's `Retry-After`; throws `error` once failures run out.
        private mutating func wait(_ error: StreamPreviewClientError?) async throws {
            failures += 1
            if let error, let limit = options.maxConsecutiveFailures, failures > limit {
                var error = error
                error.attempts = failures
                throw error
            }
            var delay = Double(parser.retryMilliseconds ?? 3000) / 1000
            for _ in 1..<Swift.min(failures, 16) { delay *= 2 }
            delay = Swift.min(delay, options.maxDelay) * Double.random(in: 0.5...1)
            delay = Swift.max(delay, error?.retryAfter ?? 0)
            try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
        }

        static func change(of event: ServerSentEvent) -> FeedChange? {
            let data = Data(event.data.utf8)
            let decoder = JSONDecoder()
            switch event.name {
            case "preview": return (try? decoder.decode(FeedItem.self, from: data)).map { .preview($0) }
            case "removed":
                return (try? decoder.decode(StreamCount.self, from: data)).map {
                    .removed(streamId: $0.streamId, previewVersion: $0.previewVersion)
                }
            case "likes":
                return (try? decoder.decode(StreamCount.self, from: data)).map {
                    .likes(streamId: $0.streamId, likes: $0.likes)
                }
            case "reset": return .reset
            default: return nil  // a kind this client does not know: skipped
            }
        }
    }
}

/// The data of `removed` and `likes` events.
struct StreamCount: Decodable {
    var streamId: Int64
    var previewVersion: Int64
    var likes: Int64

    enum CodingKeys: String, CodingKey { case streamId, previewVersion, likes }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        streamId = try c.int64(.streamId)
        previewVersion = try c.int64(.previewVersion)
        likes = try c.int64(.likes)
    }
}

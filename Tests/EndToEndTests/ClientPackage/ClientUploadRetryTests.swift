import Foundation
import PreviewTestSupport
import StreamPreviewClient
import Testing

/// The package's uploader against a real `serve` whose signed URLs (and, for the API cases, whose
/// API) lead through the scripted proxy of `UploadRetryTests`: the same faults, the same rules.
@Suite("StreamPreviewClient upload retries, end to end")
struct ClientUploadRetryTests {
    func upload(_ setup: UploadThroughProxy, events: UploadEvents) async throws -> UploadResult {
        let client = StreamPreviewClient(
            baseURL: try #require(URL(string: setup.server)), token: { [token = setup.token] in token })
        return try await client.upload(
            stream: 42, clip: URL(fileURLWithPath: setup.clipPath), still: URL(fileURLWithPath: setup.thumbnailPath),
            onEvent: { events.record($0) })
    }

    func retries(_ events: UploadEvents) -> [(request: String, after: Double, error: StreamPreviewClientError)] {
        events.all.compactMap { event in
            if case .retrying(let request, let after, let error) = event { return (request, after, error) }
            return nil
        }
    }

    @Test("A connection reset mid-body is retried from the first byte, and the store holds the file")
    func resetMidBody() async throws {
        let setup = try UploadThroughProxy { step in
            step.movieAttempt == 1 ? .resetMidBody(afterBytes: 256 * 1024) : .forward
        }
        let events = UploadEvents()
        let result = try await upload(setup, events: events)
        #expect(result.item.streamId == 42 && result.item.previewVersion == 1)
        #expect(try setup.served(result.item.movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 2)
        let retried = retries(events)
        try #require(retried.count == 1, "\(events.all)")
        #expect(retried[0].request == "PUT of clip.mp4")
        #expect(retried[0].error.failure == .transfer && retried[0].error.status == nil, "\(retried[0].error)")
        #expect(events.all.contains(.started(.clip, totalBytes: Int64(setup.movie.count), attempt: 2)))
    }

    @Test("Two 503 answers are retried no sooner than their Retry-After, with the store's code on the error")
    func serviceUnavailable() async throws {
        let setup = try UploadThroughProxy { step in
            guard let attempt = step.movieAttempt, attempt <= 2 else { return .forward }
            return UploadThroughProxy.answer(503, code: "unavailable", message: "the store is busy", retryAfter: 1)
        }
        let events = UploadEvents()
        let result = try await upload(setup, events: events)
        #expect(try setup.served(result.item.movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 3)
        let retried = retries(events)
        #expect(retried.map(\.after) == [1.0, 1.0], "the backoff (at most 0.5 s, then 1 s) is below Retry-After")
        #expect(retried.map { $0.error.status } == [503, 503])
        #expect(retried.map { $0.error.code } == ["unavailable", "unavailable"])
        #expect(retried.map { $0.error.retryAfter } == [1, 1])
    }

    @Test("A conflict on a retry after a lost answer goes on to commit the stored object")
    func conflictAfterLostAnswer() async throws {
        let setup = try UploadThroughProxy { step in
            step.movieAttempt == 1 ? .forwardThenReset : .forward
        }
        let events = UploadEvents()
        let result = try await upload(setup, events: events)
        #expect(try setup.served(result.item.movieUrl) == setup.movie)
        #expect(setup.movieAttempts == 2)
        #expect(retries(events).count == 1)
        #expect(events.all.contains(.stored(.clip)))
    }

    @Test("A refusal is thrown at once with the store's status and code, and nothing is retried")
    func refusal() async throws {
        let setup = try UploadThroughProxy { step in
            step.movieAttempt == nil
                ? .forward : UploadThroughProxy.answer(400, code: "invalid_argument", message: "no")
        }
        let events = UploadEvents()
        let error = await #expect(throws: StreamPreviewClientError.self) { try await upload(setup, events: events) }
        #expect(error?.status == 400 && error?.code == "invalid_argument" && error?.message == "no")
        #expect(error?.request == "PUT of clip.mp4" && error?.attempts == 1)
        #expect(setup.movieAttempts == 1 && retries(events).isEmpty)
    }

    @Test("A commit answered 503 is repeated, but a post whose answer was lost is not")
    func commitRepeatedPostNot() async throws {
        let setup = try UploadThroughProxy(apiThroughProxy: true) { step in
            switch (step.request.path, step.pathAttempt) {
            case ("/api/preview/commit", 1):
                return UploadThroughProxy.answer(503, code: "unavailable", message: "Redis is busy", retryAfter: 1)
            case ("/api/preview/post", 2):
                return .forwardThenReset  // the server issues URLs; the client never hears of them
            default: return .forward
            }
        }
        let events = UploadEvents()
        let result = try await upload(setup, events: events)
        #expect(result.item.previewVersion == 1)
        #expect(setup.attempts("POST", "/api/preview/commit") == 2)
        #expect(retries(events).map(\.request) == ["POST /api/preview/commit"])

        let error = await #expect(throws: StreamPreviewClientError.self) {
            try await upload(setup, events: UploadEvents())
        }
        #expect(
            error?.request == "POST /api/preview/post" && error?.failure == .transfer, "\(String(describing: error))")
        #expect(setup.attempts("POST", "/api/preview/post") == 2, "one post per upload: the second is not repeated")
    }
}

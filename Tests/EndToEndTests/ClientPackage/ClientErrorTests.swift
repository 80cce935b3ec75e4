import Foundation
import PreviewTestSupport
import StreamPreviewClient
import Testing

/// The package's typed errors against a real `serve`: each refusal is a `StreamPreviewClientError`
/// with the exact status, the server's code and message, its request ID and `Retry-After`.
@Suite("StreamPreviewClient typed errors, end to end")
struct ClientErrorTests {
    /// Expects `body` to throw the client's error with `status` and `code`, and returns it.
    func expectError(
        _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ body: () async throws -> Void
    ) async throws -> StreamPreviewClientError {
        let error = try await #require(throws: StreamPreviewClientError.self, sourceLocation: sourceLocation) {
            try await body()
        }
        #expect(error.status == status && error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        let requestId = try #require(error.requestId, "\(error)", sourceLocation: sourceLocation)
        #expect(
            requestId.count == 16 && requestId.allSatisfy(\.isHexDigit), "\(requestId)", sourceLocation: sourceLocation)
        return error
    }

    @Test("401 unauthenticated and 403 forbidden come from the post, which is not repeated")
    func authentication() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        let unknown = try fixture.client(token: "not.a.jwt")
        let refused = try await expectError(401, "unauthenticated") {
            _ = try await unknown.upload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        }
        #expect(refused.request == "POST /api/preview/post" && refused.attempts == 1)
        let viewer = try fixture.client(token: fixture.viewer)
        let forbidden = try await expectError(403, "forbidden") {
            _ = try await viewer.upload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        }
        #expect(forbidden.attempts == 1)
        _ = try await expectError(401, "unauthenticated") { _ = try await unknown.like(stream: 42) }
    }

    @Test(
        "A commit before the PUTs is 409 object_missing naming the clip, in either encoding",
        arguments: APIEncoding.allCases)
    func objectMissing(encoding: APIEncoding) async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        let client = try fixture.client(token: fixture.streamer, encoding: encoding)
        let ticket = try await client.requestUpload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        let error = try await expectError(409, "object_missing") { _ = try await client.commit(ticket) }
        #expect(error.target == "movie" && error.request == "POST /api/preview/commit" && error.attempts == 1)
    }

    @Test("A clip that grew after its URL was signed is 413 payload_too_large from the store, not retried")
    func payloadTooLarge() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        let client = try fixture.client(token: fixture.streamer)
        let ticket = try await client.requestUpload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        try Data(fixture.movie + [0, 0, 0, 0]).write(to: fixture.clipURL)
        let error = try await expectError(413, "payload_too_large") { _ = try await client.finishUpload(ticket) }
        #expect(error.request == "PUT of clip.mp4" && error.attempts == 1)
    }

    @Test("A clip whose bytes are no MP4 is 422 object_content_mismatch at commit")
    func contentMismatch() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        try Data(TestMedia.jpeg(size: 4096, seed: 1)).write(to: fixture.clipURL)
        let client = try fixture.client(token: fixture.streamer)
        let error = try await expectError(422, "object_content_mismatch") {
            _ = try await client.upload(stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        }
        #expect(error.target == "movie" && error.request == "POST /api/preview/commit" && error.attempts == 1)
    }

    @Test("A like past the write limit is 429 rate_limited with Retry-After")
    func rateLimited() async throws {
        let fixture = try ClientFixture(arguments: ["--rate-limit", "feed=off,write=1/1h,upload=off,commit=off"])
        defer { fixture.removeFolder() }
        _ = try await fixture.client(token: fixture.streamer).upload(
            stream: 42, clip: fixture.clipURL, still: fixture.stillURL)
        let viewer = try fixture.client(token: fixture.viewer)
        #expect(try await viewer.like(stream: 42) == LikeState(likes: 1, liked: true))
        let error = try await expectError(429, "rate_limited") { _ = try await viewer.unlike(stream: 42) }
        let retryAfter = try #require(error.retryAfter)
        #expect(retryAfter > 0 && retryAfter <= 3600, "\(retryAfter)")
    }

    @Test("An event stream refused for want of slots is 503 event_streams_full with Retry-After")
    func eventStreamsFull() async throws {
        let fixture = try ClientFixture(arguments: ["--max-event-streams-per-ip", "1"])
        defer { fixture.removeFolder() }
        let held = try EventStreamClient(fixture.service.baseURL + "/api/feed/events")
        #expect(held.status == 200)
        let events = try fixture.client(token: nil).events(options: EventStreamOptions(maxConsecutiveFailures: 0))
        let error = try await expectError(503, "event_streams_full") {
            try await withDeadline { for try await event in events { Issue.record("no event was expected: \(event)") } }
        }
        #expect(error.request == "GET /api/feed/events")
        let retryAfter = try #require(error.retryAfter)
        #expect((5...15).contains(retryAfter), "\(retryAfter)")
    }
}

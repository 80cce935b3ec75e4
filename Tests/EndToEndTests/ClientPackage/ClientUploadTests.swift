import Foundation
import PreviewTestSupport
import StreamPreviewClient
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `StreamPreviewClient.upload(stream:clip:still:)` against a real `serve`: the files are stored
/// byte for byte, progress is reported, and faults on the way are retried as `streampreview upload` does.
@Suite("StreamPreviewClient uploads, end to end")
struct ClientUploadTests {
    @Test("An upload publishes the preview, reports each file's progress up to its size, and serves the exact bytes")
    func uploadWithProgress() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        let client = try fixture.client(token: fixture.streamer)
        let events = UploadEvents()
        let result = try await client.upload(
            stream: 42, clip: fixture.clipURL, still: fixture.stillURL, onEvent: { events.record($0) })
        #expect(result.item.streamId == 42 && result.item.previewVersion == 1)
        #expect(result.ticket.uploadId.count == 32)
        let clipProgress = events.progress(.clip)
        #expect(clipProgress.last == Int64(fixture.movie.count), "\(clipProgress.suffix(3))")
        #expect(clipProgress == clipProgress.sorted(), "progress only grows within one attempt")
        #expect(events.progress(.still).last == Int64(fixture.still.count))
        #expect(events.all.first == .started(.clip, totalBytes: Int64(fixture.movie.count), attempt: 1))
        #expect(events.all.contains(.stored(.clip)) && events.all.last == .stored(.still))
        let (served, _) = try await URLSession.shared.data(from: try #require(URL(string: result.item.movieUrl)))
        #expect([UInt8](served) == fixture.movie)

        let feed = try #require(try await fixture.client(token: nil).feed())
        #expect(feed.items.map(\.streamId) == [42])
    }

    @Test("The preview's details go with the upload request and come back in the item, in both encodings")
    func details() async throws {
        let fixture = try ClientFixture()
        defer { fixture.removeFolder() }
        // The streamer owns stream 42 only: the second upload replaces the first preview.
        for (stream, encoding) in [(Int64(42), APIEncoding.json), (42, .protobuf)] {
            let client = try fixture.client(token: fixture.streamer, encoding: encoding)
            let details = PreviewDetails(
                title: "Night synth jam (\(encoding))", category: "music", language: "pt-br", mature: true,
                altText: "Hands on a keyboard")
            let result = try await client.upload(
                stream: stream, clip: fixture.clipURL, still: fixture.stillURL, details: details)
            var expected = details
            expected.language = "pt-BR"
            #expect(result.item.details == expected, "\(encoding)")
            let feed = try #require(try await fixture.client(token: nil, encoding: encoding).feed())
            #expect(feed.items.first { $0.streamId == stream }?.details == expected, "\(encoding)")
        }
        let refused = await #expect(throws: StreamPreviewClientError.self) {
            try await fixture.client(token: fixture.streamer).upload(
                stream: 42, clip: fixture.clipURL, still: fixture.stillURL,
                details: PreviewDetails(category: "Not A Slug"))
        }
        #expect(refused?.status == 400 && refused?.code == "invalid_argument", "\(String(describing: refused))")
    }
}

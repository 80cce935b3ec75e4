import Foundation
import Testing

@testable import StreamPreviewClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The JSON models: the proto3 mapping the server writes, and what an app keeps or hands on.
@Suite("Client models")
struct ModelsTests {
    @Test("A feed item reads int64 fields as strings or numbers, and writes them back as the server does")
    func feedItemJSON() throws {
        let json =
            #"{"streamId":"42","movieUrl":"m","thumbnailUrl":"t","likes":3,"liked":true,"seen":false,"#
            + #""previewVersion":"9007199254740993","updatedAt":"1","expiresAt":"2","durationMs":"2000","width":160,"#
            + #""height":90,"fastStart":true,"stale":false,"labels":{"rating":"g"}}"#
        let item = try JSONDecoder().decode(FeedItem.self, from: Data(json.utf8))
        #expect(item.streamId == 42 && item.likes == 3 && item.liked && item.labels == ["rating": "g"])
        #expect(item.previewVersion == 9_007_199_254_740_993, "past a double's exact integers")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let written = String(decoding: try encoder.encode(item), as: UTF8.self)
        #expect(written.contains(#""previewVersion":"9007199254740993""#) && written.contains(#""likes":"3""#))
        #expect(try JSONDecoder().decode(FeedItem.self, from: Data(written.utf8)) == item)
    }

    @Test("A ticket survives being kept as JSON, and its PUT requests carry the signed headers but Content-Length")
    func ticket() throws {
        let put = SignedPut(
            url: try #require(URL(string: "http://127.0.0.1:8080/objects/a?X-Amz-Signature=x")),
            headers: ["Content-Type": "video/mp4", "Content-Length": "10", "If-None-Match": "*"],
            file: URL(fileURLWithPath: "/tmp/clip.mp4"))
        let ticket = UploadTicket(
            streamId: 42, uploadId: String(repeating: "a", count: 32), expiresAt: 5, refreshAfter: 300, clip: put,
            still: put)
        #expect(try JSONDecoder().decode(UploadTicket.self, from: try JSONEncoder().encode(ticket)) == ticket)
        let request = put.request
        #expect(request.httpMethod == "PUT" && request.url == put.url)
        #expect(request.value(forHTTPHeaderField: "Content-Type") == "video/mp4")
        #expect(request.value(forHTTPHeaderField: "If-None-Match") == "*")
        #expect(request.value(forHTTPHeaderField: "Content-Length") == nil, "the session sends the file's own")
    }
}

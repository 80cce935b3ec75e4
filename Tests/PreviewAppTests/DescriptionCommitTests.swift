import Foundation
import PreviewCore
import PreviewRedis
import PreviewTestSupport
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// A preview's description: sent with its upload request, checked there, published with it in
/// feed items and the preview hash, and named on its share page; each upload states its own.
@Suite struct DescriptionCommitTests {
    static let described =
        #","title":"Night synth jam","category":"music","language":"JA-jp","mature":true,"altText":"Hands on a keyboard""#

    @Test func theDescriptionReachesTheItemTheFeedInBothEncodingsAndTheHash() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 41, extraJSON: Self.described)
        #expect(
            item.details.title == "Night synth jam" && item.details.category == "music"
                && item.details.language == "ja-JP")
        #expect(item.details.mature && item.details.altText == "Hands on a keyboard")
        let json = try #require(try app.feed().first)
        #expect(json.details.title == item.details.title && json.details.language == "ja-JP" && json.details.mature)
        let protobuf = app.send("GET", "/api/feed", headers: [("Accept", "application/x-protobuf")])
        let listed = try #require(try FeedResponse(protobuf: protobuf.bytes).items.first)
        #expect(
            listed.details.altText == "Hands on a keyboard" && listed.details.category == "music"
                && listed.details.mature)
        let hash = try app.redis.connection().command(["HMGET", RedisKeys(prefix: "t").preview(41), "title", "mature"])
        #expect(hash.array?.compactMap(\.string) == ["Night synth jam", "1"])
    }

    @Test func theNextUploadStatesItsOwnDescription() throws {
        let app = try AppHarness()
        try app.publish(stream: 42, extraJSON: Self.described)
        let next = try app.publish(stream: 42, extraJSON: #","title":"Second song""#)
        #expect(
            next.details.title == "Second song" && next.details.category == "" && next.details.language == ""
                && !next.details.mature)
        #expect(try app.feed().first?.details.altText == "")
    }

    @Test(arguments: [
        (#","title":"bell \u0007""#, "title"), (#","category":"Music""#, "category"),
        (#","language":"english please""#, "language"), (#","altText":"a\nb""#, "altText"),
        (#","mature":"yes""#, ""),
    ])
    func aBadValueIs400NamingTheFieldAndIssuesNothing(member: String, field: String) throws {
        let app = try AppHarness()
        let streamer = app.token("streamer-43", .streamer, streams: [43])
        let refused = app.requestUpload(stream: 43, token: streamer, extraJSON: member)
        #expect(refused.status == 400, "\(member): \(refused.text)")
        let error = try ErrorResponse(json: refused.bytes)
        if !field.isEmpty {
            #expect(error.code == "invalid_argument" && error.target == field, "\(member): \(refused.text)")
        }
        // Nothing at all: no upload, no pending count, no retained bytes, no watch URL.
        let written = try app.redis.connection().command(["KEYS", "t:*"])
        #expect(written.array?.isEmpty == true, "\(member): \(written)")
    }

    @Test func theSharePageIsNamedByTheTitleAndItsImageByTheAltText() {
        var item = FeedItem(streamId: 7, movieUrl: "https://cdn.example/m", thumbnailUrl: "https://cdn.example/t")
        let plain = ShareHandler.page(item, clipType: .mp4)
        #expect(plain.contains("<title>Stream 7 is live</title>") && !plain.contains("og:image:alt"))
        item.details.title = "Night <synth> jam"
        item.details.altText = "Hands \"on\" keys"
        let described = ShareHandler.page(item, clipType: .mp4)
        #expect(described.contains("<title>Night &lt;synth&gt; jam</title>"))
        #expect(described.contains(#"<meta property="og:title" content="Night &lt;synth&gt; jam">"#))
        #expect(described.contains(#"<meta property="og:image:alt" content="Hands &quot;on&quot; keys">"#))
        #expect(described.contains(#"aria-label="Hands &quot;on&quot; keys""#))
    }
}

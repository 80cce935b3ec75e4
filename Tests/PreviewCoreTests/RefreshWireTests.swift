import PreviewCore
import PreviewCrypto
import Testing

/// `StreamPreviewPostResponse.refreshAfter` (field 7), `FeedItem.stale` (field 15), and the feed
/// snapshot rendering an item again once it turns stale.
@Suite struct RefreshWireTests {
    @Test func refreshAfterTravelsInBothFormats() throws {
        let answer = StreamPreviewPostResponse(uploadId: "u", expiresAt: 900, refreshAfter: 300)
        #expect(try StreamPreviewPostResponse(json: answer.jsonBytes()) == answer)
        #expect(try StreamPreviewPostResponse(protobuf: answer.protobufBytes()) == answer)
        #expect(String(decoding: answer.jsonBytes(), as: UTF8.self).contains(#""refreshAfter":"300""#))
        #expect(answer.protobufBytes().suffix(3) == [7 << 3, 0xAC, 0x02], "field 7, varint 300")
        let older = try StreamPreviewPostResponse(json: Array(#"{"uploadId":"u"}"#.utf8))
        #expect(older.refreshAfter == 0, "an older server's answer says nothing")
    }

    @Test func staleTravelsInBothFormatsAndThroughTheTemplate() throws {
        let item = FeedItem(
            streamId: 4, movieUrl: "m", thumbnailUrl: "t", likes: 2, previewVersion: 3, updatedAt: 10,
            expiresAt: 610, fastStart: true, stale: true)
        #expect(try FeedItem(json: item.jsonBytes()) == item)
        #expect(try FeedItem(protobuf: item.protobufBytes()) == item)
        #expect(
            String(decoding: item.jsonBytes(), as: UTF8.self).contains(
                #""seen":false,"shareUrl":"","stale":true,"streamId""#))
        #expect(item.protobufBytes().suffix(2) == [15 << 3, 1])
        var fresh = item
        fresh.stale = false
        #expect(String(decoding: fresh.jsonBytes(), as: UTF8.self).contains(#""stale":false"#), "always written")

        let template = FeedItemTemplate(item, crypto: OpenSSLCrypto())
        var json: [UInt8] = []
        template.appendJSON(to: &json, likes: 2, liked: false, seen: false)
        #expect(json == item.jsonBytes())
        var protobuf: [UInt8] = []
        template.appendProtobufField(to: &protobuf, likes: 2, liked: false, seen: false)
        #expect(try FeedResponse(protobuf: protobuf).items == [item])
    }

    @Test func aReloadRendersAnItemAgainOnceItsTemplateIsOutOfDate() {
        let live = [liveStream(1, updatedAt: 5, likes: 0), liveStream(2, updatedAt: 6, likes: 1)]
        let first = FeedSnapshot(streams: live, signingTime: 0, loadedAtMilliseconds: 0, reusing: nil) { stream in
            FeedItemTemplate(renderedItem(stream), crypto: OpenSSLCrypto(), validUntil: stream.preview.updatedAt + 100)
        }
        func rendered(at milliseconds: Int64) -> [Int64] {
            var rendered: [Int64] = []
            _ = FeedSnapshot(streams: live, signingTime: 0, loadedAtMilliseconds: milliseconds, reusing: first) {
                rendered.append($0.preview.streamId)
                return template($0)
            }
            return rendered
        }
        #expect(rendered(at: 104_999) == [], "both still valid")
        #expect(rendered(at: 105_000) == [1], "stream 1's turns stale at 105 s")
        #expect(rendered(at: 106_000) == [1, 2])
        let never = FeedSnapshot(streams: live, signingTime: 0, loadedAtMilliseconds: 0, reusing: nil) { template($0) }
        var again: [Int64] = []
        _ = FeedSnapshot(streams: live, signingTime: 0, loadedAtMilliseconds: .max, reusing: never) {
            again.append($0.preview.streamId)
            return template($0)
        }
        #expect(again == [], "a template without a limit is reused for as long as its window lasts")
    }
}

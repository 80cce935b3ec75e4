import PreviewCore
import PreviewCrypto
import Testing

/// `FeedItem.labels` (field 14, `map<string, string>`): its JSON and protobuf forms, the feed's
/// templates, and the preview hash it comes from.
@Suite("Feed item labels")
struct FeedItemLabelsTests {
    static let item = FeedItem(
        streamId: 7, movieUrl: "https://cdn.example/m/7.mp4", thumbnailUrl: "https://cdn.example/t/7.jpg", likes: 3,
        previewVersion: 2, updatedAt: 100, expiresAt: 700, durationMs: 2000, width: 320, height: 180, fastStart: true,
        labels: ["rating": "general", "lang": "ü"])

    @Test("JSON: an object between height and language; left out entirely when empty; read back either way")
    func json() throws {
        let text = String(decoding: Self.item.jsonBytes(), as: UTF8.self)
        #expect(text.contains(#""height":180,"labels":{"lang":"ü","rating":"general"},"language":"""#))
        #expect(try FeedItem(json: Self.item.jsonBytes()) == Self.item)
        var plain = Self.item
        plain.labels = [:]
        #expect(!String(decoding: plain.jsonBytes(), as: UTF8.self).contains("labels"))
        #expect(try FeedItem(json: Array(#"{"labels":{}}"#.utf8)) == FeedItem())
        #expect(try FeedItem(json: Array(#"{"labels":null}"#.utf8)) == FeedItem())
    }

    @Test("protobuf: field 14 entries {key = 1, value = 2} in key order, as protoc encodes them")
    func protobufMatchesProtoc() throws {
        let item = FeedItem(streamId: 7, labels: ["rating": "general", "lang": "ü", "e": ""])
        let golden = try Protoc.encode(
            "FeedItem",
            text: #"""
                streamId: 7
                labels { key: "e" value: "" }
                labels { key: "lang" value: "ü" }
                labels { key: "rating" value: "general" }
                """#)
        #expect(item.protobufBytes() == golden)
        #expect(try FeedItem(protobuf: golden) == item)
        #expect(FeedItem(streamId: 7).protobufBytes() == [0x08, 0x07], "no labels, no bytes")
    }

    @Test("a feed template of an item whose labels spell the holes' markers fills the item's own holes")
    func templateHolesIgnoreLabels() throws {
        var item = Self.item
        item.labels = ["likes": "0", "liked": "false", "seen": "false", "a": "\"likes\":\"0\""]
        let template = FeedItemTemplate(item, crypto: OpenSSLCrypto())
        var filled: [UInt8] = []
        template.appendJSON(to: &filled, likes: 12, liked: true, seen: true)
        var expected = item
        (expected.likes, expected.liked, expected.seen) = (12, true, true)
        #expect(String(decoding: filled, as: UTF8.self) == String(decoding: expected.jsonBytes(), as: UTF8.self))
        var protobuf: [UInt8] = []
        template.appendProtobufField(to: &protobuf, likes: 12, liked: true, seen: true)
        #expect(protobuf == FeedResponse(items: [expected]).protobufBytes())
    }

    @Test("the preview hash keeps labels in one field, only when there are some, and reads them back")
    func previewHash() throws {
        let record = PreviewRecord(
            streamId: 7, version: 1, uploadId: String(repeating: "a", count: 32), movieKey: "m", thumbnailKey: "t",
            movieType: .mp4, thumbnailType: .jpeg, movieBytes: 1, thumbnailBytes: 1, updatedAt: 1, expiresAt: 2,
            labels: ["rating": "general"])
        let fields = Dictionary(uniqueKeysWithValues: record.fieldsWithoutVersion).merging(["version": "1"]) { $1 }
        #expect(fields["labels"] == #"{"rating":"general"}"#)
        #expect(PreviewRecord(streamId: 7, fields: fields) == record)
        var plain = record
        plain.labels = [:]
        #expect(!plain.fieldsWithoutVersion.contains { $0.0 == "labels" })
        var foreign = fields
        foreign["labels"] = "not json"
        #expect(PreviewRecord(streamId: 7, fields: foreign)?.labels == [:], "a foreign value does not lose the preview")
    }
}

import PreviewCore
import Testing

/// Our protobuf bytes against `protoc --encode` / `--decode` of proto/stream_preview.proto.
@Suite("Wire: protobuf golden bytes from protoc")
struct WireProtocGoldenTests {
    /// Our encoding equals protoc's, decoding protoc's bytes gives the value back, and
    /// protoc decodes our bytes to text that re-encodes to the same bytes.
    func expectGolden<Message: WireMessage & Equatable>(
        _ name: String, _ text: String, _ value: Message, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let golden = try Protoc.encode(name, text: text)
        let ours = value.protobufBytes()
        #expect(ours == golden, "ours: \(ours.hex)\nprotoc: \(golden.hex)", sourceLocation: sourceLocation)
        #expect(try Message(protobuf: golden) == value, sourceLocation: sourceLocation)
        let roundTrip = try Protoc.encode(name, text: try Protoc.decode(name, bytes: ours))
        #expect(roundTrip == golden, sourceLocation: sourceLocation)
    }

    @Test func postRequestWithExtremeAndNegativeInt64MatchesProtoc() throws {
        try expectGolden(
            "StreamPreviewPostRequest",
            """
            streamId: 9223372036854775807
            movieBytes: -1
            thumbnailBytes: -9223372036854775808
            movieContentType: "video/mp4"
            """, WireSamples.postRequest)
    }

    @Test func messagesWithOnlyDefaultValuesEncodeToNoBytesLikeProtoc() throws {
        try expectGolden("StreamPreviewPostRequest", "", StreamPreviewPostRequest())
        try expectGolden("StreamPreviewPostResponse", "", StreamPreviewPostResponse())
        try expectGolden("FeedItem", "streamId: 0 liked: false movieUrl: \"\"", FeedItem())
        try expectGolden("FeedResponse", "", FeedResponse())
        try expectGolden("ErrorResponse", "", ErrorResponse())
    }

    @Test func postResponseWithUnicodeAndSeveralMapEntriesMatchesProtoc() throws {
        // Entries in UTF-8 key order, which is the order we write.
        try expectGolden(
            "StreamPreviewPostResponse",
            """
            movieBodyUrl: "https://s3.example.com/bucket/m/42.mp4?X-Amz-Signature=ab%2Fcd&x=1"
            movieThumbnailBodyUrl: "https://s3.example.com/bucket/t/42.jpg"
            uploadId: "ü🎬-日本"
            expiresAt: 1700000000
            movieHeaders { key: "Content-Length" value: "1048576" }
            movieHeaders { key: "Content-Type" value: "video/mp4" }
            movieHeaders { key: "x-amz-meta-é" value: "ü" }
            movieHeaders { key: "x-empty" value: "" }
            thumbnailHeaders { key: "Content-Type" value: "image/jpeg" }
            """, WireSamples.postResponse)
    }

    @Test func mapEntriesProtocWritesOutOfOrderDecodeWithTheLastDuplicateWinning() throws {
        let golden = try Protoc.encode(
            "StreamPreviewPostResponse",
            text: """
                movieHeaders { key: "b" value: "first" }
                movieHeaders { key: "a" }
                movieHeaders { value: "no key" }
                movieHeaders { key: "b" value: "second" }
                """)
        let decoded = try StreamPreviewPostResponse(protobuf: golden)
        #expect(decoded.movieHeaders == ["a": "", "": "no key", "b": "second"])
    }

    @Test func commitRequestWithNegativeIdAndEmptyUploadIdMatchesProtoc() throws {
        try expectGolden("StreamPreviewCommitRequest", "streamId: -42", WireSamples.commitRequest)
    }

    @Test func feedItemWithEveryKindOfFieldMatchesProtoc() throws {
        try expectGolden(
            "FeedItem",
            """
            streamId: 7 movieUrl: "https://cdn.example.com/m/7.mp4" likes: 9223372036854775807
            liked: true seen: false previewVersion: 3 updatedAt: -1 expiresAt: -9223372036854775808
            durationMs: 2000 width: -2147483648 height: 2147483647 fastStart: true
            """, WireSamples.feedItem)
    }

    @Test func feedResponseWithRepeatedItemsIncludingAnEmptyOneMatchesProtoc() throws {
        try expectGolden(
            "FeedResponse",
            """
            items {
              streamId: 7 movieUrl: "https://cdn.example.com/m/7.mp4" likes: 9223372036854775807
              liked: true previewVersion: 3 updatedAt: -1 expiresAt: -9223372036854775808
              durationMs: 2000 width: -2147483648 height: 2147483647 fastStart: true
            }
            items {}
            items { streamId: 1 movieUrl: "🎥" likes: 1 seen: true width: 320 height: -1 }
            """, WireSamples.feedResponse)
    }

    @Test func feedItemClipFieldsAloneMatchProtocAndANegativeInt32TakesTenBytes() throws {
        let item = FeedItem(durationMs: 1, width: -1, height: 240, fastStart: true)
        try expectGolden("FeedItem", "durationMs: 1 width: -1 height: 240 fastStart: true", item)
        // Field 11, varint: -1 sign-extended to 64 bits, as protoc writes an int32.
        #expect(
            item.protobufBytes() == [0x50, 0x01, 0x58] + [UInt8](repeating: 0xFF, count: 9) + [
                0x01, 0x60, 0xF0, 0x01, 0x68, 0x01,
            ])
    }

    @Test func refreshFieldsMatchProtoc() throws {
        try expectGolden("FeedItem", "streamId: 3 stale: true", FeedItem(streamId: 3, stale: true))
        try expectGolden(
            "StreamPreviewPostResponse", #"uploadId: "u" refreshAfter: 300"#,
            StreamPreviewPostResponse(uploadId: "u", refreshAfter: 300))
    }

    @Test func likeResponsesWithEitherFieldDefaultMatchProtoc() throws {
        try expectGolden("LikeResponse", "liked: true", WireSamples.likeResponse)
        try expectGolden("LikeResponse", "likes: 1", LikeResponse(likes: 1, liked: false))
    }

    @Test func errorResponseWithEscapesAndUnicodeMatchesProtoc() throws {
        try expectGolden(
            "ErrorResponse",
            #"""
            code: "invalid_argument"
            message: "line1\nline2 \"quoted\" \\ é 日本"
            target: "streamId"
            requestId: "req-0001"
            """#, WireSamples.errorResponse)
    }
}

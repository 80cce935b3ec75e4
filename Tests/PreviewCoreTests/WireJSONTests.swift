import PreviewCore
import ProtobufWire
import Testing

/// The proto3 JSON mapping: output shape, accepted int64 forms, hostile input.
@Suite("Wire: proto3 JSON")
struct WireJSONTests {
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func defaultValuesAreAllWrittenWithInt64AsStringsAndKeysSorted() {
        #expect(
            Self.text(FeedItem().jsonBytes()) == """
                {"altText":"","category":"","codecs":"","downloadUrl":"","durationMs":"0","expiresAt":"0",\
                "fastStart":false,"height":0,"language":"","liked":false,"likes":"0","mature":false,"movieUrl":"",\
                "previewVersion":"0","seen":false,"shareUrl":"","stale":false,"streamId":"0","thumbnailUrl":"",\
                "title":"","updatedAt":"0","width":0}
                """)
        #expect(
            Self.text(StreamPreviewPostResponse().jsonBytes()) == """
                {"expiresAt":"0","movieBodyUrl":"","movieHeaders":{},"movieThumbnailBodyUrl":"","refreshAfter":"0",\
                "thumbnailHeaders":{},"uploadId":""}
                """)
        #expect(Self.text(FeedResponse().jsonBytes()) == #"{"items":[]}"#)
        #expect(Self.text(LikeResponse().jsonBytes()) == #"{"liked":false,"likes":"0"}"#)
        #expect(Self.text(StreamPreviewCommitRequest().jsonBytes()) == #"{"streamId":"0","uploadId":""}"#)
        #expect(Self.text(ErrorResponse().jsonBytes()) == #"{"code":"","message":"","requestId":"","target":""}"#)
        #expect(
            Self.text(StreamPreviewPostRequest().jsonBytes()) == """
                {"altText":"","category":"","language":"","mature":false,"movieBytes":"0","movieContentType":"",\
                "streamId":"0","thumbnailBytes":"0","thumbnailContentType":"","title":"","watchUrl":""}
                """)
        #expect(Self.text(StreamStatsResponse().jsonBytes()) == #"{"streamId":"0","versions":[],"watchUrl":""}"#)
        #expect(Self.text(WatchUrlRequest().jsonBytes()) == #"{"watchUrl":""}"#)
    }

    @Test func urlsKeepTheirSlashesAndExtremeInt64sAreExactStrings() {
        let json = Self.text(WireSamples.postResponse.jsonBytes())
        #expect(json.contains(#""movieBodyUrl":"https://s3.example.com/bucket/m/42.mp4?X-Amz-Signature=ab%2Fcd&x=1""#))
        #expect(json.contains(#""movieHeaders":{"Content-Length":"1048576","Content-Type":"video/mp4","#))
        #expect(
            Self.text(WireSamples.postRequest.jsonBytes()).contains(
                #""streamId":"9223372036854775807","thumbnailBytes":"-9223372036854775808""#))
    }

    @Test func everySampleRoundTripsThroughJSON() throws {
        #expect(try StreamPreviewPostRequest(json: WireSamples.postRequest.jsonBytes()) == WireSamples.postRequest)
        #expect(try StreamPreviewPostResponse(json: WireSamples.postResponse.jsonBytes()) == WireSamples.postResponse)
        #expect(
            try StreamPreviewCommitRequest(json: WireSamples.commitRequest.jsonBytes()) == WireSamples.commitRequest)
        #expect(try FeedItem(json: WireSamples.feedItem.jsonBytes()) == WireSamples.feedItem)
        #expect(try FeedResponse(json: WireSamples.feedResponse.jsonBytes()) == WireSamples.feedResponse)
        #expect(try LikeResponse(json: WireSamples.likeResponse.jsonBytes()) == WireSamples.likeResponse)
        #expect(try ErrorResponse(json: WireSamples.errorResponse.jsonBytes()) == WireSamples.errorResponse)
    }

    @Test(arguments: [
        ("42", Int64(42)), (#""42""#, 42), ("-9223372036854775808", Int64.min), (#""-9223372036854775808""#, Int64.min),
        ("9223372036854775807", Int64.max), (#""9223372036854775807""#, Int64.max), (#""-0""#, 0), ("-0", 0),
        ("1e3", 1000), ("1E3", 1000), ("5.0", 5), ("100e-2", 1), ("-2.5e1", -25), ("null", 0),
    ])
    func int64IsAcceptedAsAnIntegralNumberOrADecimalString(json: String, expected: Int64) throws {
        let request = try StreamPreviewCommitRequest(json: Array(#"{"streamId":\#(json)}"#.utf8))
        #expect(request.streamId == expected)
    }

    @Test(arguments: [
        #""abc""#, "1.5", "1e-3", "1e400", "-1e400", "9223372036854775808", "-9223372036854775809",
        #""9223372036854775808""#, #""1e3""#, #""1.0""#, #""""#, #"" 1""#, #""+1""#, #""0x10""#, "true", "[]", "{}",
        "123456789012345678901234567890", #""007""#, #""-07""#, #""00""#,
    ])
    func anInt64ThatIsNotAnIntegerInRangeIsRejectedNamingTheField(json: String) {
        #expect {
            try StreamPreviewCommitRequest(json: Array(#"{"uploadId":"u","streamId":\#(json)}"#.utf8))
        } throws: { error in
            guard case .invalidField(let name, _) = error as? WireError else { return false }
            return name == "streamId"
        }
    }

    @Test func clipFieldsAreAnInt64StringAndInt32NumbersInJSON() throws {
        let item = FeedItem(durationMs: 2500, width: 320, height: -240, fastStart: true)
        let json = Self.text(item.jsonBytes())
        #expect(json.contains(#""durationMs":"2500""#) && json.contains(#""width":320"#))
        #expect(json.contains(#""height":-240"#) && json.contains(#""fastStart":true"#))
        #expect(try FeedItem(json: item.jsonBytes()) == item)
        let strings = #"{"durationMs":2500,"width":"320","height":2.4e2,"fastStart":null}"#
        #expect(try FeedItem(json: Array(strings.utf8)) == FeedItem(durationMs: 2500, width: 320, height: 240))
    }

    @Test(arguments: ["2147483648", "-2147483649", #""2147483648""#, "1.5", #""x""#, "true", "[]"])
    func anInt32OutOfRangeOrOfTheWrongTypeIsRejectedNamingTheField(json: String) {
        #expect {
            try FeedItem(json: Array(#"{"width":\#(json)}"#.utf8))
        } throws: { error in
            guard case .invalidField(let name, let message) = error as? WireError else { return false }
            return name == "width" && message.contains("2^31")
        }
    }

    @Test func aBadValueInsideAFeedItemIsNamedByItsPath() {
        #expect(throws: WireError.invalidField(name: "items[1].likes", message: "not a decimal int64 string")) {
            try FeedResponse(json: Array(#"{"items":[{},{"likes":"many"}]}"#.utf8))
        }
    }

    @Test(arguments: [
        (#"{"uploadId":5}"#, "uploadId"), (#"{"uploadId":["u"]}"#, "uploadId"),
        (#"{"items":{}}"#, "items"), (#"{"items":[null]}"#, "items[0]"),
        (#"{"items":[{"liked":"true"}]}"#, "items[0].liked"),
        (#"{"movieHeaders":[]}"#, "movieHeaders"), (#"{"movieHeaders":{"a":1}}"#, "movieHeaders.a"),
        (#"{"movieHeaders":{"a":null}}"#, "movieHeaders.a"),
    ])
    func aValueOfTheWrongJSONTypeIsRejectedNamingTheField(json: String, field: String) {
        #expect {
            switch json {
            case _ where json.contains("items"): _ = try FeedResponse(json: Array(json.utf8))
            case _ where json.contains("movieHeaders"): _ = try StreamPreviewPostResponse(json: Array(json.utf8))
            default: _ = try StreamPreviewCommitRequest(json: Array(json.utf8))
            }
        } throws: { error in
            guard case .invalidField(let name, _) = error as? WireError else { return false }
            return name == field
        }
    }

    @Test func nullMeansTheDefaultValue() throws {
        let json = #"{"movieBodyUrl":null,"expiresAt":null,"movieHeaders":null,"uploadId":"u"}"#
        #expect(try StreamPreviewPostResponse(json: Array(json.utf8)) == StreamPreviewPostResponse(uploadId: "u"))
        #expect(try FeedResponse(json: Array(#"{"items":null}"#.utf8)) == FeedResponse())
        #expect(try FeedItem(json: Array(#"{"liked":null,"seen":true}"#.utf8)) == FeedItem(seen: true))
    }

    @Test func unknownKeysAreIgnoredWhateverTheyHold() throws {
        let json = #"{"zzz":{"a":[1,2.5,{"b":null}],"c":"\u0000"},"streamId":"5","extra":1e999999,"n":null}"#
        #expect(try StreamPreviewCommitRequest(json: Array(json.utf8)) == StreamPreviewCommitRequest(streamId: 5))
    }

    @Test func escapedUnicodeAndRawUTF8StringsDecode() throws {
        let json = #"{"code":"\u00e9\ud83c\udfac","message":"日本\n\"q\"\/"}"#
        #expect(try ErrorResponse(json: Array(json.utf8)) == ErrorResponse(code: "é🎬", message: "日本\n\"q\"/"))
    }

    @Test(arguments: ["", " ", "[]", #""x""#, "42", "null", "true", "{", "not json", #"{"a":}"#, "{}{}"])
    func aBodyThatIsNotAJSONObjectIsMalformed(json: String) {
        #expect {
            try LikeResponse(json: Array(json.utf8))
        } throws: { error in
            guard case .malformed = error as? WireError else { return false }
            return true
        }
    }

    @Test func invalidUTF8AndDeeplyNestedGarbageAreMalformedNotCrashes() {
        // {"code":"\xFF"} and {"zzz":"\xC3("}: invalid UTF-8 anywhere, even under an unknown key.
        #expect(throws: WireError.malformed("the JSON body is not valid UTF-8")) {
            try ErrorResponse(json: Array(#"{"code":""#.utf8) + [0xFF] + Array(#""}"#.utf8))
        }
        #expect(throws: WireError.malformed("the JSON body is not valid UTF-8")) {
            try ErrorResponse(json: Array(#"{"zzz":""#.utf8) + [0xC3, 0x28] + Array(#""}"#.utf8))
        }
        let depth = 100_000
        let deep = #"{"x":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        #expect(throws: WireError.malformed("not valid JSON")) { try FeedResponse(json: Array(deep.utf8)) }
    }

    @Test func anEmptyObjectDecodesToTheDefaultMessage() throws {
        #expect(try StreamPreviewPostRequest(json: Array("{}".utf8)) == StreamPreviewPostRequest())
        #expect(try FeedResponse(json: Array(" { } ".utf8)) == FeedResponse())
    }
}

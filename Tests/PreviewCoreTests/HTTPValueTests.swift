import PreviewCore
import Testing

@Suite struct ByteRangeTests {
    @Test func rangesResolveAgainstTheLength() {
        #expect(ByteRange.resolve(nil, length: 100) == .whole)
        #expect(ByteRange.resolve("bytes=0-9", length: 100) == .partial(offset: 0, length: 10))
        #expect(ByteRange.resolve("bytes=90-", length: 100) == .partial(offset: 90, length: 10))
        #expect(ByteRange.resolve("bytes=90-500", length: 100) == .partial(offset: 90, length: 10))
        #expect(ByteRange.resolve("bytes=-5", length: 100) == .partial(offset: 95, length: 5))
        #expect(ByteRange.resolve("bytes=-500", length: 100) == .partial(offset: 0, length: 100))
        #expect(ByteRange.resolve("bytes=0-0", length: 1) == .partial(offset: 0, length: 1))
    }

    @Test func unsatisfiableRangesAreSaidSo() {
        #expect(ByteRange.resolve("bytes=100-", length: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=-0", length: 100) == .unsatisfiable)
        #expect(ByteRange.resolve("bytes=0-", length: 0) == .unsatisfiable)
    }

    @Test func rangesWeDoNotServeGiveTheWholeBody() {
        for header in ["items=0-1", "bytes=5-1", "bytes=a-b", "bytes=0-1,5-6", "bytes"] {
            #expect(ByteRange.resolve(header, length: 100) == .whole, "\(header)")
        }
    }

    /// RFC 9110 positions are digits only; a sign makes the range invalid, so it is ignored.
    /// (Found by the Range fuzz target: `Bytes=+1  - ` was served as 206.)
    @Test func positionsWithASignAreNotRangesAndGiveTheWholeBody() {
        for header in ["bytes=+1-2", "Bytes=+1  - ", "bytes=1-+2", "bytes=-+5", "bytes=-1-2"] {
            #expect(ByteRange.resolve(header, length: 100) == .whole, "\(header)")
        }
    }
}

@Suite struct NegotiationTests {
    @Test func requestBodiesAreJSONOrProtobuf() {
        #expect(WireFormat.ofRequestBody(contentType: "application/json; charset=utf-8", bodyIsEmpty: false) == .json)
        #expect(WireFormat.ofRequestBody(contentType: "application/x-protobuf", bodyIsEmpty: false) == .protobuf)
        #expect(WireFormat.ofRequestBody(contentType: "Application/Protobuf", bodyIsEmpty: false) == .protobuf)
        #expect(WireFormat.ofRequestBody(contentType: "text/plain", bodyIsEmpty: false) == nil)
        #expect(WireFormat.ofRequestBody(contentType: "application/x-www-form-urlencoded", bodyIsEmpty: true) == nil)
    }

    @Test func aBodyWithoutContentTypeIsNeitherFormatButNoBodyIsJSON() {
        #expect(WireFormat.ofRequestBody(contentType: nil, bodyIsEmpty: false) == nil)
        #expect(WireFormat.ofRequestBody(contentType: nil, bodyIsEmpty: true) == .json)
    }

    @Test(
        "Accept picks the format by q-value, most specific range first; q=0 excludes; neither format admitted is nil",
        arguments: [
            // (Accept, the request's own format, the answer; nil = 406)
            (nil, WireFormat.protobuf, WireFormat?.some(.protobuf)),
            ("", .json, .json),
            ("*/*", .json, .json),
            ("*/*", .protobuf, .protobuf),
            ("application/*", .json, .json),
            ("application/x-protobuf", .json, .protobuf),
            ("application/vnd.google.protobuf", .json, .protobuf),
            ("application/json, application/x-protobuf", .protobuf, .json),
            ("application/json;q=0.5, application/x-protobuf", .json, .protobuf),
            ("application/json, application/x-protobuf;q=0.9", .protobuf, .json),
            ("text/html", .json, nil),
            ("text/html, text/plain;q=0.5", .protobuf, nil),
            ("image/*", .json, nil),
            ("application/json;q=0", .json, nil),
            ("application/json;q=0, */*", .json, .protobuf),
            ("application/x-protobuf;q=0, application/*", .protobuf, .json),
            ("*/*;q=0", .json, nil),
            ("text/html, */*;q=0.1", .protobuf, .protobuf),
            ("text/html, application/*;q=0.2", .json, .json),
            ("application/json;q=bogus", .json, nil),
            ("application/json;q=2", .json, nil),
            ("APPLICATION/JSON; Q=0.3", .protobuf, .json),
            ("garbage", .json, nil),
        ] as [(String?, WireFormat, WireFormat?)])
    func acceptChoosesTheResponseFormat(accept: String?, own: WireFormat, expected: WireFormat?) {
        #expect(WireFormat.forResponse(accept: accept, fallback: own) == expected)
    }

    @Test func ifNoneMatchComparesWeaklyAndAcceptsStar() {
        #expect(EntityTag.ifNoneMatch("\"abc\"", matches: "\"abc\""))
        #expect(EntityTag.ifNoneMatch("W/\"abc\", \"x\"", matches: "\"abc\""))
        #expect(EntityTag.ifNoneMatch("*", matches: "\"abc\""))
        #expect(!EntityTag.ifNoneMatch("\"abd\"", matches: "\"abc\""))
        #expect(!EntityTag.ifNoneMatch(nil, matches: "\"abc\""))
    }

    @Test func headersAreLookedUpWithoutCase() {
        var headers = HTTPHeaders([("Content-Type", "a"), ("X-A", "1"), ("x-a", "2")])
        #expect(headers["content-type"] == "a")
        #expect(headers.values("X-a") == ["1", "2"])
        headers.set("X-A", "3")
        #expect(headers.values("x-a") == ["3"])
    }
}

@Suite struct FeedQueryTests {
    @Test func limitDefaultsIsCappedAndMustBePositive() throws {
        #expect(try FeedQuery.parse(rawQuery: "").get() == FeedQuery(limit: 20))
        #expect(try FeedQuery.parse(rawQuery: "limit=5&current=42").get() == FeedQuery(limit: 5, current: 42))
        #expect(try FeedQuery.parse(rawQuery: "limit=500").get().limit == 100)
        for bad in ["limit=0", "limit=-1", "limit=abc", "limit=", "current=0", "current=x", "current=007"] {
            guard case .failure(let error) = FeedQuery.parse(rawQuery: bad) else {
                Issue.record("accepted \(bad)")
                continue
            }
            #expect(error.status == 400)
        }
    }

    @Test func queryStringsDecodePercentAndPlus() {
        #expect(QueryString.parse("a=1+2&b=%41%zz&c").map { "\($0.0)=\($0.1)" } == ["a=1 2", "b=A%zz", "c="])
    }
}

@Suite struct ExpiryGridTests {
    @Test func everyMomentOfAWindowSharesOneSigningTime() {
        let grid = ExpiryGrid(lifetime: 3600, window: 1800)
        #expect(grid.signingTime(at: 1800) == 1800)
        #expect(grid.signingTime(at: 3599) == 1800)
        #expect(grid.signingTime(at: 3600) == 3600)
        #expect(grid.expiry(at: 3599) == 5400)
    }

    @Test func aMintedURLAlwaysHasAtLeastLifetimeMinusWindowLeft() {
        let grid = ExpiryGrid(lifetime: 3600, window: 1800)
        for now in stride(from: Int64(1_700_000_000), to: 1_700_010_000, by: 37) {
            #expect(grid.expiry(at: now) - now > 1800)
            #expect(grid.expiry(at: now) - now <= 3600)
        }
    }
}

import Testing

@testable import PreviewCore

/// Crafted `Accept`, `Content-Type` and `If-None-Match` values cost bounded work: the parsers
/// look at a capped number of list elements and bytes, and say so.
@Suite struct HeaderLimitTests {
    static func accept(ranges count: Int, last: String = "application/json") -> String {
        ((1..<count).map { "text/x-\($0)" } + [last]).joined(separator: ", ")
    }

    @Test func anAcceptOf32RangesIsReadWholeAndOneOf33IsTooLarge() throws {
        let ranges = try #require(MediaRange.parseList(Self.accept(ranges: 32)))
        #expect(ranges.count == 32)
        #expect(ranges.last?.kind == .json)
        #expect(WireFormat.negotiate(accept: Self.accept(ranges: 32), fallback: .protobuf) == .format(.json))
        #expect(MediaRange.parseList(Self.accept(ranges: 33)) == nil)
        #expect(WireFormat.negotiate(accept: Self.accept(ranges: 33), fallback: .json) == .tooLarge)
    }

    @Test func anAcceptOf3000RangesIsTooLargeAndTheErrorBodyTakesTheFallbackFormat() {
        let header = Array(repeating: "a/b", count: 3000).joined(separator: ",")
        #expect(MediaRange.parseList(header) == nil)
        #expect(WireFormat.negotiate(accept: header, fallback: .json) == .tooLarge)
        #expect(WireFormat.forResponse(accept: header, fallback: .protobuf) == .protobuf)
    }

    @Test func anAcceptLongerThan2048BytesIsTooLargeWhateverItsRangeCount() {
        let header = "application/json;" + String(repeating: "x", count: 2048)
        #expect(MediaRange.parseList(header) == nil)
        #expect(WireFormat.negotiate(accept: header, fallback: .json) == .tooLarge)
        let fits = "application/json;" + String(repeating: "x", count: 2048 - 17)
        #expect(WireFormat.negotiate(accept: fits, fallback: .protobuf) == .format(.json))
    }

    @Test func mediaRangesAreComparedWithoutCaseAndWeightedWithCapitalQ() throws {
        let ranges = try #require(MediaRange.parseList(" Application/X-Protobuf ;Q=0.5 , */*;q=0.1,APPLICATION/*"))
        #expect(ranges.map(\.kind) == [.protobuf, .any, .applicationAny])
        #expect(ranges.map(\.quality) == [0.5, 0.1, 1])
    }

    @Test func aContentTypeIsJudgedByItsFirst128BytesOfEssence() {
        #expect(WireFormat.ofRequestBody(contentType: " Application/JSON ; charset=utf-8", bodyIsEmpty: false) == .json)
        let longParameters = "application/x-protobuf; x=" + String(repeating: "y", count: 8192)
        #expect(WireFormat.ofRequestBody(contentType: longParameters, bodyIsEmpty: false) == .protobuf)
        let longEssence = "application/" + String(repeating: "j", count: 8192)
        #expect(WireFormat.ofRequestBody(contentType: longEssence, bodyIsEmpty: false) == nil)
        #expect(WireFormat.ofRequestBody(contentType: longEssence, bodyIsEmpty: true) == nil)
        let padded = String(repeating: " ", count: 120) + "application/json"
        #expect(WireFormat.ofRequestBody(contentType: padded, bodyIsEmpty: false) == nil, "past the first 128 bytes")
    }

    @Test func ifNoneMatchComparesUpTo32TagsAndTreatsALongerListAsAbsent() {
        let etag = "\"abc\""
        let others = (1...31).map { "\"t\($0)\"" }
        #expect(EntityTag.ifNoneMatch((others + ["W/\"abc\""]).joined(separator: ", "), matches: etag))
        #expect(EntityTag.ifNoneMatch(([etag] + others).joined(separator: ","), matches: etag))
        let thirtyThree = [etag] + others + ["\"t32\""]
        #expect(!EntityTag.ifNoneMatch(thirtyThree.joined(separator: ","), matches: etag), "33 tags: no match")
        let twoHundred = [etag] + (1...199).map { "\"t\($0)\"" }
        #expect(!EntityTag.ifNoneMatch(twoHundred.joined(separator: ","), matches: etag))
        #expect(!EntityTag.ifNoneMatch("*," + String(repeating: " ", count: 4096), matches: etag), "over 4096 bytes")
        #expect(EntityTag.ifNoneMatch(" * ", matches: etag))
        #expect(!EntityTag.ifNoneMatch("\"ab\", \"abcd\", W/\"ABC\"", matches: etag))
    }

    @Test func asciiComparisonFoldsLettersOnly() {
        #expect(ASCII.equalIgnoringCase("Bearer".utf8, "bEARER".utf8))
        #expect(!ASCII.equalIgnoringCase("a@".utf8, "a`".utf8), "@ and ` differ only in bit 0x20 but are not letters")
        #expect(!ASCII.equalIgnoringCase("ab".utf8, "abc".utf8))
        #expect(Array(ASCII.trimmingBlanks(" \t a b\t "[...].utf8)) == Array("a b".utf8))
    }
}

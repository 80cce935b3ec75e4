import PreviewCore
import Testing

/// The shared text helpers: percent-decoding (strict and lenient), hex, trimming, HTTP tokens.
@Suite struct TextHelperTests {
    @Test func strictPercentDecodingRefusesBrokenEscapes() {
        #expect(PercentDecoding.strict("%7e%7E") == Array("~~".utf8))
        #expect(PercentDecoding.strict("a+b") == Array("a+b".utf8))
        #expect(PercentDecoding.strict("a+b", plusIsSpace: true) == Array("a b".utf8))
        for broken in ["%", "%4", "%G0", "a%+1", "%-1", "ok%"] {
            #expect(PercentDecoding.strict(broken) == nil, "\(broken)")
        }
    }

    @Test func lenientPercentDecodingKeepsBrokenEscapesAsTheyAre() {
        #expect(PercentDecoding.lenient("%7e%7E") == Array("~~".utf8))
        #expect(PercentDecoding.lenient("a+b", plusIsSpace: true) == Array("a b".utf8))
        for broken in ["%", "%4", "%G0", "5%", "100%+"] {
            #expect(PercentDecoding.lenient(broken) == Array(broken.utf8), "\(broken)")
        }
        #expect(QueryString.parse("current=5%&limit=%32").map { "\($0)=\($1)" } == ["current=5%", "limit=2"])
    }

    @Test func hexIsTwoDigitsPerByteInEitherCaseAndParsesLowerCaseOnly() {
        #expect(Hex.encode([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(Hex.encode([0x0f, 0xa0], uppercase: true) == "0FA0")
        #expect(Hex.encode([]) == "")
        #expect(Hex.decodeLowercase("000fa0ff") == [0x00, 0x0f, 0xa0, 0xff])
        #expect(Hex.decodeLowercase("0FA0") == nil)
        #expect(Hex.decodeLowercase("abc") == nil)
        #expect(Hex.decodeLowercase("zz") == nil)
    }

    @Test func trimmingRemovesOnlySpacesAndTabsAtBothEnds() {
        #expect(" \t a b \t ".trimmingSpacesAndTabs() == "a b")
        #expect("\na\n".trimmingSpacesAndTabs() == "\na\n")
        #expect(" \t ".trimmingSpacesAndTabs() == "")
        #expect("x"[...].trimmingSpacesAndTabs() == "x")
    }

    @Test func httpTokensAreRFC9110TcharsAndNeverEmpty() {
        #expect(HTTPToken.isToken("X-Custom_Header.1!#$%&'*+^`|~"))
        for bad in ["", "a b", "a:b", "a\r", "é", "(x)", "a/b", "a@b", "{", "\""] {
            #expect(!HTTPToken.isToken(bad), "\(bad.debugDescription)")
        }
    }
}

import Testing

@testable import PreviewCore

@Suite struct SigningSigV4EncodingTests {
    @Test(arguments: [
        ("/a b", "/a%20b"),
        ("/a+b", "/a%2Bb"),
        ("/a~b", "/a~b"),
        ("/100%", "/100%25"),
        ("/-._~AZaz09", "/-._~AZaz09"),
        ("/!$'()*,;:@[]", "/%21%24%27%28%29%2A%2C%3B%3A%40%5B%5D"),
        ("/=&?#", "/%3D%26%3F%23"),
        ("/a/./b/../c", "/a/./b/../c"),
        ("//x//", "//x//"),
        ("/😀", "/%F0%9F%98%80"),
        ("/", "/"),
    ])
    func theCanonicalURIEncodesEveryByteButUnreservedAndSlash(path: String, expected: String) {
        #expect(SigV4Canonical.uri(Array(path.utf8)) == expected)
    }

    @Test func composedAndDecomposedSpellingsOfAKeyEncodeDifferently() {
        let nfc = SigV4Canonical.uri(Array("/caf\u{E9}".utf8))
        let nfd = SigV4Canonical.uri(Array("/cafe\u{301}".utf8))
        #expect(nfc == "/caf%C3%A9")
        #expect(nfd == "/cafe%CC%81")
    }

    @Test func rawBytesThatAreNotUTF8AreEncodedAsTheyAre() {
        #expect(SigV4Canonical.uri([0x2F, 0xFF, 0x00]) == "/%FF%00")
    }

    @Test func queryValuesEncodeTheSlashToo() {
        #expect(SigV4Encoding.queryEncode("a/b c") == "a%2Fb%20c")
    }

    @Test func headerValuesAreTrimmedCollapsedLowerCasedAndSorted() {
        let headers = SigV4Canonical.headers([
            ("X-B", "  two   spaces\there "), ("Host", "h"), ("x-b", "second"), ("A", ""),
        ])
        #expect(headers.map(\.name) == ["a", "host", "x-b"])
        #expect(headers.map(\.value) == ["", "h", "two spaces here,second"])
    }

    @Test func theSignedHostDropsOnlyTheSchemesDefaultPort() {
        #expect(SigV4Canonical.host("Example.COM:443", scheme: "https") == "example.com")
        #expect(SigV4Canonical.host("example.com:80", scheme: "http") == "example.com")
        #expect(SigV4Canonical.host("example.com:443", scheme: "http") == "example.com:443")
        #expect(SigV4Canonical.host("127.0.0.1:9000", scheme: "http") == "127.0.0.1:9000")
        #expect(SigV4Canonical.host("[::1]:9000", scheme: "http") == "[::1]:9000")
        #expect(SigV4Canonical.host("[::1]", scheme: "http") == "[::1]")
        #expect(SigV4Canonical.host("::1", scheme: "http") == nil)
        #expect(SigV4Canonical.host("a:99999", scheme: "http") == nil)
        #expect(SigV4Canonical.host("a/b", scheme: "http") == nil)
        #expect(SigV4Canonical.host("", scheme: "http") == nil)
        #expect(SigV4Canonical.host("a", scheme: "ftp") == nil)
    }

    @Test(arguments: [
        (Int64(0), "19700101T000000Z"),
        (Int64(951_782_400), "20000229T000000Z"),
        (Int64(1_709_251_199), "20240229T235959Z"),
        (Int64(4_107_542_400), "21000301T000000Z"),
        (Int64(253_402_300_799), "99991231T235959Z"),
    ])
    func amzDatesRoundTripThroughUnixSeconds(seconds: Int64, text: String) {
        #expect(SigV4Time.amzDate(seconds) == text)
        #expect(SigV4Time.parseAmzDate(text) == seconds)
    }

    @Test(arguments: [
        "20240230T000000Z", "21000229T000000Z", "20241301T000000Z", "20240101T240000Z", "20240101T000060Z",
        "20240101 000000Z", "20240101T000000", "2024-01-01T00:00:00Z", "+0240101T000000Z", "20240101T000000z",
    ])
    func malformedOrImpossibleAmzDatesAreRefused(text: String) {
        #expect(SigV4Time.parseAmzDate(text) == nil)
    }
}

import PreviewCore
import Testing

@Suite("Log values cannot break a line in two or forge a field")
struct LogfmtValueTests {
    @Test("a plain value stays as it is")
    func plainValue() {
        #expect(LogfmtValue.quoted("/api/feed") == "/api/feed")
    }

    @Test(
        "carriage returns, newlines, tabs, quotes, backslashes and other control bytes are escaped inside quotes",
        arguments: [
            ("a\rb", #""a\rb""#), ("a\nb", #""a\nb""#), ("a\tb", #""a\tb""#), ("say \"hi\"", #""say \"hi\"""#),
            (#"c:\ x"#, #""c:\\ x""#), ("\u{1}\u{7F}", #""\u0001\u007f""#), ("a=b", #""a=b""#), ("", #""""#),
        ])
    func escapes(_ value: String, _ expected: String) {
        #expect(LogfmtValue.quoted(value) == expected)
    }

    @Test("no escaped value holds a line break")
    func noLineBreaks() {
        let quoted = LogfmtValue.quoted("GET / HTTP/1.1\r\nX-Forged: level=error\r\n")
        #expect(!quoted.utf8.contains(UInt8(ascii: "\n")))
        #expect(!quoted.utf8.contains(UInt8(ascii: "\r")))
    }
}

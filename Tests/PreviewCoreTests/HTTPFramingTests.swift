import PreviewCore
import Testing

@Suite("HTTPFraming accepts a body length told one way only")
struct HTTPFramingTests {
    @Test(
        "one Content-Length, one chunked coding (any case, leading blanks), or neither is unambiguous",
        arguments: [
            [], [("Content-Length", "0")], [("content-length", "12")], [("Transfer-Encoding", "chunked")],
            [("transfer-encoding", " Chunked")],
            [("Content-Length", "3"), ("X-Custom_Name.v2", "a")], [("Host", "h"), ("Content-Type", "a/b")],
        ])
    func unambiguous(_ fields: [(String, String)]) {
        #expect(HTTPFraming.problem(in: HTTPHeaders(fields)) == nil)
    }

    @Test(
        "Content-Length with Transfer-Encoding, several lengths, several or other codings are ambiguous",
        arguments: [
            (
                [("Content-Length", "3"), ("Transfer-Encoding", "chunked")],
                "Content-Length and Transfer-Encoding together"
            ),
            (
                [("Transfer-Encoding", "chunked"), ("Content-Length", "3")],
                "Content-Length and Transfer-Encoding together"
            ),
            ([("Content-Length", "5"), ("content-length", "5")], "more than one Content-Length field"),
            ([("Content-Length", "5, 5")], "more than one Content-Length value"),
            (
                [("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")],
                "more than one Transfer-Encoding field"
            ),
            ([("Transfer-Encoding", "gzip, chunked")], "Transfer-Encoding other than chunked"),
            ([("Transfer-Encoding", "chunked, chunked")], "Transfer-Encoding other than chunked"),
            ([("Transfer-Encoding", "identity")], "Transfer-Encoding other than chunked"),
            ([("Transfer-Encoding", "")], "Transfer-Encoding other than chunked"),
            // The server's HTTP library reads these as not chunked, a proxy may read them as chunked.
            ([("Transfer-Encoding", "chunked ")], "Transfer-Encoding other than chunked"),
            ([("Transfer-Encoding", "chunked\t")], "Transfer-Encoding other than chunked"),
            // `Transfer-Encoding : chunked` (whitespace before the colon) as that library passes it on.
            (
                [("Transfer-Encoding ", "chunked"), ("Content-Length", "5")],
                "a field name with whitespace or a folded line in it"
            ),
            ([("Content-Length\t", "5")], "a field name with whitespace or a folded line in it"),
            ([("", "5")], "a field name with whitespace or a folded line in it"),
            // Folded lines as that library passes them on: glued onto the field name.
            (
                [("Transfer-Encoding, gzip", "chunked")],
                "a field name with whitespace or a folded line in it"
            ),
            (
                [("Transfer-Encodingchunked", ""), ("Content-Length", "5")],
                "a folded Content-Length or Transfer-Encoding field"
            ),
            ([("content-length6", "5")], "a folded Content-Length or Transfer-Encoding field"),
        ])
    func ambiguous(_ fields: [(String, String)], reason: String) {
        #expect(HTTPFraming.problem(in: HTTPHeaders(fields)) == .ambiguousFraming(reason))
    }
}

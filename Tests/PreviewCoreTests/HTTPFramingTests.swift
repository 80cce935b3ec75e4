import PreviewCore
import Testing

@Suite("HTTPFraming accepts a body length told one way only")
struct HTTPFramingTests {
    @Test(
        "one Content-Length, one chunked coding (any case, optional spaces), or neither is unambiguous",
        arguments: [
            [], [("Content-Length", "0")], [("content-length", "12")], [("Transfer-Encoding", "chunked")],
            [("transfer-encoding", " Chunked\t")], [("Host", "h"), ("Content-Type", "a/b")],
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
        ])
    func ambiguous(_ fields: [(String, String)], reason: String) {
        #expect(HTTPFraming.problem(in: HTTPHeaders(fields)) == .ambiguousFraming(reason))
    }
}

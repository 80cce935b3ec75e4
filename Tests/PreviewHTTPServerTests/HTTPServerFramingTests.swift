import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer refuses requests whose body length could be read two ways")
struct HTTPServerFramingTests {
    /// A head with ambiguous framing, followed by bytes a lenient server would parse as a
    /// second request (the smuggling primitive).
    static let smuggled = "GET /smuggled HTTP/1.1\r\nHost: h\r\n\r\n"

    @Test(
        "ambiguous framing gets one 400 and a closed connection; the bytes after the head are never a request",
        arguments: [
            (
                "Content-Length and Transfer-Encoding", "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n",
                "0\r\n\r\n"
            ),
            (
                "Transfer-Encoding then Content-Length", "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n",
                "0\r\n\r\n"
            ),
            ("two different Content-Lengths", "Content-Length: 0\r\nContent-Length: 40\r\n", ""),
            ("two equal Content-Lengths", "Content-Length: 5\r\nContent-Length: 5\r\n", "hello"),
            // MHD answers this one itself, before admission (its 400 repeats its own head).
            ("a Content-Length list", "Content-Length: 5, 5\r\n", "hello"),
            ("Transfer-Encoding gzip", "Transfer-Encoding: gzip\r\n", "hello"),
            ("Transfer-Encoding gzip, chunked", "Transfer-Encoding: gzip, chunked\r\n", "0\r\n\r\n"),
            ("Transfer-Encoding identity", "Transfer-Encoding: identity\r\n", ""),
            (
                "two Transfer-Encoding fields", "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n",
                "0\r\n\r\n"
            ),
        ])
    func ambiguousFraming(_ name: String, headers: String, body: String) throws {
        let responder = RecordingResponder()
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /a HTTP/1.1\r\nHost: h\r\n\(headers)\r\n\(body)\(Self.smuggled)")
            let response = try connection.readResponse()
            #expect(response.status == 400, "\(name)")
            let rest = String(decoding: try connection.readUntilClosed(), as: UTF8.self)
            #expect(!rest.contains("HTTP/1."), "\(name): a second response followed: \(rest)")
        }
        #expect(responder.seenRequests.isEmpty, "\(name)")
        #expect(!responder.seenHeads.contains { $0.path == "/smuggled" }, "\(name)")
    }

    @Test("a refusal for ambiguous framing is the responder's, sent with Connection: close")
    func refusalComesFromTheResponder() throws {
        let responder = RecordingResponder()
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                "POST /a HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 400)
            #expect(response.body == Array("refused".utf8))
            #expect(response["Connection"]?.lowercased() == "close")
            #expect(try connection.readUntilClosed().isEmpty)
        }
        #expect(responder.seenRefusals == [.ambiguousFraming("Content-Length and Transfer-Encoding together")])
    }

    @Test("a chunked body in upper case is one unambiguous coding and is read")
    func upperCaseChunked() throws {
        let responder = RecordingResponder()
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: CHUNKED\r\n\r\n2\r\nhi\r\n0\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.body == Array("hi".utf8))
    }
}

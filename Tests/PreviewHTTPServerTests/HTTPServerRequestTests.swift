import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer turns connections into request values")
struct HTTPServerRequestTests {
    @Test("a GET with a query reaches the responder with method, path, query, headers in order and peer address")
    func getWithQuery() throws {
        let responder = RecordingResponder()
        let response = try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                "GET /hello?name=world&x=1 HTTP/1.1\r\nHost: example.test\r\nX-Tag: one\r\nAccept: */*\r\nx-tag: two\r\n\r\n"
            )
            return try connection.readResponse()
        }
        #expect(response.status == 200)
        #expect(response.body == Array("ok".utf8))
        let request = try #require(responder.seenRequests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/hello")
        #expect(request.rawQuery == "name=world&x=1")
        #expect(request.headers.fields.map(\.name) == ["Host", "X-Tag", "Accept", "x-tag"])
        #expect(request.headers.values("X-Tag") == ["one", "two"])
        #expect(request.body.isEmpty)
        #expect(!request.bodyTooLarge)
        #expect(request.remoteAddress == "127.0.0.1")
        #expect(responder.seenHeads.count == 1)
        #expect(responder.seenHeads.first?.rawQuery == "name=world&x=1")
    }

    @Test(
        "the path and query reach the responder exactly as sent, still percent-encoded",
        arguments: [
            (
                "/objects/a%2Fb/%7E/./x//y?X-Amz-Signature=ab%2B&b=c+d", "/objects/a%2Fb/%7E/./x//y",
                "X-Amz-Signature=ab%2B&b=c+d"
            ),
            ("/p%25q%20r/%00z?%3D=%26&empty=&=&a?b", "/p%25q%20r/%00z", "%3D=%26&empty=&=&a?b"),
            ("/no-query", "/no-query", ""),
            ("/trailing-mark?", "/trailing-mark", ""),
            ("/../up/%2e%2E/x", "/../up/%2e%2E/x", ""),
        ])
    func rawTarget(target: String, path: String, query: String) throws {
        let responder = RecordingResponder()
        let response = try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
            return try connection.readResponse()
        }
        #expect(response.status == 200)
        let request = try #require(responder.seenRequests.first)
        #expect(request.path == path)
        #expect(request.rawQuery == query)
        #expect(responder.seenHeads.first?.path == path)
    }

    @Test("a head carrying the longest bearer token the service accepts (8 KiB) fits the per-connection memory")
    func longestTokenFits() throws {
        let responder = RecordingResponder()
        let token = String(repeating: "t", count: 8192)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                "GET /api/feed?limit=20 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: client/1.0\r\n"
                    + "Accept: application/json\r\nAuthorization: Bearer \(token)\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.headers["Authorization"] == "Bearer \(token)")
    }

    @Test(
        "POST body bytes arrive exactly, small text and 1 MiB binary, on the connection's thread or a worker",
        arguments: [ResponderThread.connection, .worker])
    func postBody(thread: ResponderThread) throws {
        let responder = RecordingResponder(limit: 2 << 20, on: thread)
        let binary = binaryBytes(count: 1 << 20)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /t?a=1 HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
            #expect(try connection.readResponse().status == 200)
            try connection.send(
                "PUT /bin HTTP/1.1\r\nHost: h\r\nContent-Type: application/octet-stream\r\nContent-Length: \(binary.count)\r\n\r\n"
            )
            try connection.send(binary)
            #expect(try connection.readResponse().status == 200)
        }
        let requests = responder.seenRequests
        try #require(requests.count == 2)
        #expect(requests[0].method == "POST")
        #expect(requests[0].body == Array("hello".utf8))
        #expect(requests[1].method == "PUT")
        #expect(requests[1].body.count == binary.count)
        #expect(requests[1].body == binary)
        #expect(!requests[1].bodyTooLarge)
    }

    @Test("a client that expects 100-continue gets it, then sends its body")
    func expectContinue() throws {
        let responder = RecordingResponder()
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("PUT /e HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n")
            #expect(try connection.readResponse(hasBody: false).status == 100)
            try connection.send("data")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.body == Array("data".utf8))
    }

    @Test("a chunked body within the limit arrives de-chunked")
    func chunkedWithinLimit() throws {
        let responder = RecordingResponder(limit: 100)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"
            )
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.body == Array("hello world".utf8))
    }

    @Test("a Content-Length over the limit gives bodyTooLarge, an empty body, and a reusable connection")
    func contentLengthOverLimit() throws {
        let responder = RecordingResponder(limit: 1000) { request in
            HTTPResponse(status: request.bodyTooLarge ? 413 : 200)
        }
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 5000\r\n\r\n")
            try connection.send(binaryBytes(count: 5000))
            let first = try connection.readResponse()
            #expect(first.status == 413)
            try connection.send("POST /up HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc")
            #expect(try connection.readResponse().status == 200)
        }
        let requests = responder.seenRequests
        try #require(requests.count == 2)
        #expect(requests[0].bodyTooLarge)
        #expect(requests[0].body.isEmpty)
        #expect(!requests[1].bodyTooLarge)
        #expect(requests[1].body == Array("abc".utf8))
        #expect(responder.seenHeads.count == 2)
    }

    @Test("a body at exactly the limit is accepted")
    func bodyAtLimit() throws {
        let responder = RecordingResponder(limit: 4)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\n\r\nabcd")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.body == Array("abcd".utf8))
        #expect(responder.seenRequests.first?.bodyTooLarge == false)
    }

    @Test("a chunked body growing past the limit is not drained: the connection closes unanswered")
    func chunkedOverLimit() throws {
        let responder = RecordingResponder(limit: 1000)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
            // The server may close (and reset) the connection before every chunk is sent.
            for _ in 0..<3 {
                try? connection.send("258\r\n")  // 600 bytes
                try? connection.send(binaryBytes(count: 600))
                try? connection.send("\r\n")
            }
            try? connection.send("0\r\n\r\n")
            #expect(try connection.readUntilClosed().isEmpty)
        }
        #expect(responder.seenHeads.count == 1)
        #expect(responder.seenRequests.isEmpty)
    }
}

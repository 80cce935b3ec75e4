import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer admits each request on its head: buffer, stream or reject")
struct HTTPServerAdmissionTests {
    @Test("a rejected request that expects 100-continue gets the final answer without 100 Continue, then a close")
    func rejectSkipsContinue() throws {
        let responder = RecordingResponder(admission: { _ in
            .reject(HTTPResponse(status: 403, body: .bytes(Array("no".utf8))))
        })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send(
                "PUT /objects/big HTTP/1.1\r\nHost: h\r\nContent-Length: 10485760\r\nExpect: 100-continue\r\n\r\n")
            let response = try connection.readResponse()
            #expect(response.status == 403)
            #expect(response.body == Array("no".utf8))
            #expect(response["Connection"]?.lowercased() == "close")
            #expect(try connection.readUntilClosed().isEmpty)
        }
        #expect(responder.seenHeads.count == 1)
        #expect(responder.seenRequests.isEmpty)
    }

    @Test("a rejected request's body bytes already sent are never read as a next request")
    func rejectDropsTheBody() throws {
        let responder = RecordingResponder(admission: { head in
            head.path == "/no" ? .reject(HTTPResponse(status: 413)) : .buffer(limit: 100)
        })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            let smuggled = "GET /yes HTTP/1.1\r\nHost: h\r\n\r\n"
            try connection.send(
                "POST /no HTTP/1.1\r\nHost: h\r\nContent-Length: \(smuggled.utf8.count)\r\n\r\n\(smuggled)")
            #expect(try connection.readResponse().status == 413)
            #expect(try connection.readUntilClosed().isEmpty)
        }
        #expect(responder.seenHeads.map(\.path) == ["/no"])
    }

    @Test("a client still sending the body of a request refused on its head can read the whole answer: no reset")
    func rejectLingersWhileTheBodyArrives() throws {
        let responder = RecordingResponder(admission: { _ in
            .reject(HTTPResponse(status: 413, body: .bytes(Array("too large".utf8))))
        })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            // As a proxy streaming a body does: the whole body goes out before the answer is read. 12 MiB is
            // more than the kernel buffers before the server reads (its receive buffer grows only as it reads).
            try connection.send("PUT /objects/big HTTP/1.1\r\nHost: h\r\nContent-Length: 12582912\r\n\r\n")
            for _ in 0..<192 { try connection.send([UInt8](repeating: 0x61, count: 64 << 10)) }
            let response = try connection.readResponse()
            #expect(response.status == 413)
            #expect(response.body == Array("too large".utf8))
            #expect(try connection.readUntilClosed().isEmpty)
        }
    }

    @Test("a client that never stops sending the body of a refused request is cut off after the drain budget")
    func rejectStopsDrainingAnEndlessBody() throws {
        let responder = RecordingResponder(admission: { _ in .reject(HTTPResponse(status: 413)) })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("PUT /objects/big HTTP/1.1\r\nHost: h\r\nContent-Length: 1073741824\r\n\r\n")
            var sent = 0
            let chunk = [UInt8](repeating: 0x61, count: 64 << 10)
            // 64 MiB are drained at most; with the kernel's buffers on both sides, well under 512 MiB go out.
            while sent < 512 << 20, (try? connection.send(chunk)) != nil { sent += chunk.count }
            #expect(sent < 512 << 20, "the server is still reading after \(sent >> 20) MiB")
        }
    }

    @Test(
        "a streamed body reaches the sink exactly, by Content-Length or chunked, and respond gets that sink",
        arguments: [false, true])
    func streamedBody(chunked: Bool) throws {
        let sink = RecordingSink()
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        let body = binaryBytes(count: 1 << 20)
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.sendPut("/up", body: body, chunked: chunked)
            #expect(try connection.readResponse().status == 200)
        }
        #expect(sink.received == body)
        #expect(sink.abandonCount == 0)
        let request = try #require(responder.seenRequests.first)
        #expect(request.body.isEmpty)
        #expect(request.bodySink === sink)
    }

    @Test("a client that goes away mid-body gets its streamed body abandoned, once, and no respond")
    func clientGoneMidBody() throws {
        let sink = RecordingSink()
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n0123456789")
            #expect(eventually { sink.received.count == 10 })
            connection.disconnect()
            #expect(eventually { sink.abandonCount > 0 })
        }
        #expect(sink.abandonCount == 1)
        #expect(responder.seenRequests.isEmpty)
    }

    @Test("a sink that refuses a chunk ends the request: the connection closes unanswered and the sink is abandoned")
    func sinkRefuses() throws {
        let sink = RecordingSink(acceptBytes: 5)
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        try withServer(responder) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789")
            #expect(try connection.readUntilClosed().isEmpty)
            #expect(eventually { sink.abandonCount > 0 })
        }
        #expect(sink.abandonCount == 1)
        #expect(responder.seenRequests.isEmpty)
    }
}

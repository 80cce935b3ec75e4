import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer closes connections whose request body trickles")
struct HTTPServerBodyDeadlineTests {
    @Test("a buffered body trickled one byte at a time is cut off by the body deadline")
    func trickledBufferedBodyIsClosed() throws {
        let responder = RecordingResponder(limit: 1 << 16)
        try withServer(responder, configure: { $0.bodyTimeoutSeconds = 2 }) { port in
            let connection = try RawHTTPConnection(port: port)
            let body = String(repeating: "a", count: 150)
            try connection.send("POST /api HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            // 150 bytes at one per 200 ms take 30 s: the whole body would arrive (and be answered)
            // without the 2 s deadline, as MHD's 30 s inactivity timeout never trips.
            #expect(try HTTPServerDeadlineTests.trickle(body, on: connection))
        }
        #expect(responder.seenRequests.isEmpty)
    }

    @Test("a streamed body below the minimum rate is cut off after one window")
    func slowStreamedBodyIsClosed() throws {
        let sink = RecordingSink()
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        try withServer(
            responder,
            configure: {
                $0.minimumStreamedBodyBytesPerSecond = 1_000
                $0.bodyRateWindowSeconds = 1
            }
        ) { port in
            let connection = try RawHTTPConnection(port: port)
            let body = String(repeating: "a", count: 150)
            try connection.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            // About 5 bytes a second, far below 1,000; the whole body would take 30 s.
            #expect(try HTTPServerDeadlineTests.trickle(body, on: connection))
        }
        #expect(sink.abandonCount == 1)
        #expect(responder.seenRequests.isEmpty)
    }

    @Test("a streamed body above the minimum rate outlives many windows")
    func steadyStreamedBodyIsServed() throws {
        let sink = RecordingSink()
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        try withServer(
            responder,
            configure: {
                $0.minimumStreamedBodyBytesPerSecond = 1
                $0.bodyRateWindowSeconds = 1
            }
        ) { port in
            let connection = try RawHTTPConnection(port: port)
            let body = Array("0123456789012345".utf8)
            try connection.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n")
            // One byte per 200 ms: over 3 s, each window well above one byte a second.
            try sink.receiveSlowly(body, on: connection)
        }
        #expect(sink.received.count == 16)
    }

    @Test("the body deadline ends once the body is in: the kept-alive connection outlives it")
    func answerIsNotCutByTheBodyDeadline() throws {
        let responder = RecordingResponder(limit: 1 << 16)
        try withServer(responder, configure: { $0.bodyTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("POST /api HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok")
            #expect(try connection.readResponse().status == 200)
            // Kept alive past the body deadline: the idle timeout (30 s) governs it now.
            #expect(try !connection.waitForClose(milliseconds: 2_000))
            try connection.send("GET /again HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
    }
}

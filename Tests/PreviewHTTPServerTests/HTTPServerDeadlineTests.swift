import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer closes connections that miss their deadlines, however slowly they trickle")
struct HTTPServerDeadlineTests {
    /// Sends `bytes` one at a time, each after the server has had `sliceMilliseconds` to close
    /// the connection; true once it is closed, false if every byte went out first.
    static func trickle(_ bytes: String, on connection: RawHTTPConnection, sliceMilliseconds: Int = 200) throws
        -> Bool
    {
        for byte in bytes.utf8 {
            if try connection.waitForClose(milliseconds: sliceMilliseconds) { return true }
            guard (try? connection.send([byte])) != nil else { return true }
        }
        return try connection.waitForClose(milliseconds: sliceMilliseconds)
    }

    static let endlessHeader = "X-Slow: " + String(repeating: "a", count: 200)

    @Test("a head trickled one byte at a time is cut off by the header deadline")
    func trickledHeadIsClosed() throws {
        try withServer(RecordingResponder(), configure: { $0.headerTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: h\r\n")
            // 200 bytes at one per 200 ms would take 40 s: far past MHD's 30 s inactivity
            // timeout never being reached, and the 1 s header deadline.
            #expect(try Self.trickle(Self.endlessHeader, on: connection))
        }
    }

    @Test("a connection that sends nothing is closed by the header deadline, not the idle timeout")
    func silentConnectionIsClosed() throws {
        try withServer(RecordingResponder(), configure: { $0.headerTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            #expect(try connection.waitForClose(milliseconds: 10_000))
        }
    }

    @Test("on a kept-alive connection a request line trickled after an answer is cut off by the idle deadline")
    func trickledRequestLineIsClosed() throws {
        try withServer(
            RecordingResponder(),
            configure: {
                $0.headerTimeoutSeconds = 1
                $0.idleTimeoutSeconds = 1
            }
        ) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            #expect(try Self.trickle("GET /" + String(repeating: "a", count: 200), on: connection))
        }
    }

    @Test("after its request line a kept-alive connection's head is cut off by the header deadline")
    func trickledHeadAfterRequestLineIsClosed() throws {
        try withServer(RecordingResponder(), configure: { $0.headerTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET /first HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            try connection.send("GET /second HTTP/1.1\r\nHost: h\r\n")
            #expect(try Self.trickle(Self.endlessHeader, on: connection))
        }
    }

    @Test("a slow body is not cut off by the header deadline once its head is complete")
    func slowBodyOutlivesTheHeaderDeadline() throws {
        let sink = RecordingSink()
        let responder = RecordingResponder(admission: { _ in .stream(sink) })
        try withServer(responder, configure: { $0.headerTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            let body = Array("0123456789012345".utf8)
            try connection.send("PUT /up HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n")
            // One byte per 200 ms: 3.2 s, past the deadline.
            try sink.receiveSlowly(body, on: connection)
        }
        #expect(sink.received.count == 16)
    }

    @Test("an idle keep-alive connection is closed after the idle timeout")
    func idleConnectionIsClosed() throws {
        try withServer(RecordingResponder(), configure: { $0.idleTimeoutSeconds = 1 }) { port in
            let connection = try RawHTTPConnection(port: port)
            try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
            #expect(try connection.waitForClose(milliseconds: 10_000))
        }
    }
}

import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer times a new connection's first head from connecting")
struct HTTPServerFirstHeadDeadlineTests {
    @Test("a request line sent late does not give a new connection a second header timeout")
    func lateRequestLineKeepsTheConnectDeadline() throws {
        let responder = RecordingResponder()
        try withServer(responder, configure: { $0.headerTimeoutSeconds = 2 }) { port in
            let connection = try RawHTTPConnection(port: port)
            // Silent for 1.5 s of its 2 s: the request line still arrives in time.
            try #require(try !connection.waitForClose(milliseconds: 1_500))
            try connection.send("GET /late HTTP/1.1\r\nHost: h\r\n")
            // Timed from the request line the head would be due at 3.5 s; timed from connecting it
            // is due at 2 s, within this wait.
            let closed = try connection.waitForClose(milliseconds: 1_500)
            if !closed {
                try connection.send("\r\n")
                _ = try connection.waitForClose(milliseconds: 500)
            }
            #expect(closed, "the head was still accepted after the header timeout had passed since connecting")
            #expect(responder.seenHeads.isEmpty)
        }
    }
}

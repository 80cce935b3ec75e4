import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer times a new connection's first head from connecting")
struct HTTPServerFirstHeadDeadlineTests {
    @Test("a request line sent late does not give a new connection a second header timeout")
    func lateRequestLineKeepsTheConnectDeadline() throws {
        let responder = RecordingResponder()
        try withServer(responder, configure: { $0.headerTimeoutSeconds = 10 }) { port in
            // `late` connects first, so its connect deadline comes no later than `silent`'s: the
            // watchdog closes it in the same sweep as `silent` at the latest. Timed from its
            // request line instead, it would outlive `silent` by the 5 s it waited.
            let late = try RawHTTPConnection(port: port)
            let silent = try RawHTTPConnection(port: port)
            // Half the header timeout: a loaded machine has 5 s to spare either way.
            try #require(try !late.waitForClose(milliseconds: 5_000))
            try late.send("GET /late HTTP/1.1\r\nHost: h\r\n")
            try #require(
                try silent.waitForClose(milliseconds: 30_000), "the header deadline closes a silent connection")
            // Closed in the same sweep, so already or within moments; a second timeout would
            // keep it open about 5 s longer.
            let closed = try late.waitForClose(milliseconds: 2_000)
            if !closed {
                try late.send("\r\n")
                _ = try late.waitForClose(milliseconds: 1_000)
            }
            #expect(closed, "the head was still accepted after the header timeout had passed since connecting")
            #expect(responder.seenHeads.isEmpty)
        }
    }
}

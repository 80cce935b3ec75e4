import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer: no single client address starves the rest")
struct HTTPServerFairnessTests {
    @Test("1,100 connections from 127.0.0.2 holding heads open: all but 64 are closed, and 127.0.0.1 is answered")
    func slowFloodFromOneAddress() throws {
        try #require(raiseOpenFileLimit() >= 2_400, "the test holds 1,100 client sockets and the server's")
        try withServer(
            RecordingResponder(),
            configure: {
                // No deadline frees a slot during the test: only the per-address limit (64 of the
                // 1,024 connections) can leave room for another client.
                $0.headerTimeoutSeconds = 600
                $0.idleTimeoutSeconds = 600
            }
        ) { port in
            var flood: [RawHTTPConnection] = []
            for _ in 0..<1_100 {
                guard let connection = try? RawHTTPConnection(port: port, source: "127.0.0.2") else { continue }
                try? connection.send("GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: ")
                flood.append(connection)
            }
            #expect(flood.count == 1_100)
            // Each connection past the 64th from that address is closed once the server accepts it.
            var open = flood
            let deadline = ContinuousClock.now + .seconds(60)
            while open.count > 64, ContinuousClock.now < deadline {
                open = open.filter { (try? $0.waitForClose(milliseconds: 1)) != true }
            }
            #expect(open.count == 64)
            for round in 0..<3 {
                let client = try RawHTTPConnection(port: port, readTimeoutSeconds: 30)
                try client.send("GET /healthz/\(round) HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(try client.readResponse().status == 200, "round \(round)")
            }
        }
    }
}

import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Testing

@Suite("HTTPServer: no single client address starves the rest")
struct HTTPServerFairnessTests {
    @Test("1,100 connections from 127.0.0.2 trickling heads leave 127.0.0.1 answered, each within a second")
    func slowFloodFromOneAddress() throws {
        try #require(raiseOpenFileLimit() >= 2_400, "the test holds 1,100 client sockets and the server's")
        try withServer(RecordingResponder()) { port in
            // Defaults: 64 connections per address, 1,024 in all, 10 s header deadline.
            var flood: [RawHTTPConnection] = []
            for _ in 0..<1_100 {
                guard let connection = try? RawHTTPConnection(port: port, source: "127.0.0.2") else { continue }
                try? connection.send("GET /slow HTTP/1.1\r\nHost: h\r\nX-Slow: ")
                flood.append(connection)
            }
            #expect(flood.count == 1_100)
            for round in 0..<20 {
                // One more byte on every flooding connection, then a request from another client.
                for connection in flood { try? connection.send("a") }
                let client = try RawHTTPConnection(port: port, readTimeoutSeconds: 1)
                try client.send("GET /healthz/\(round) HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(try client.readResponse().status == 200, "round \(round)")
            }
        }
    }
}

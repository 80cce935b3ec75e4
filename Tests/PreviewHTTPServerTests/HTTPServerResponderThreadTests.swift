import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Synchronization
import Testing

@Suite("HTTPServer answers each request on the thread its admission chose")
struct HTTPServerResponderThreadTests {
    /// Admits `/inline...` to the connection's thread and everything else to a worker.
    static func byPath(_ head: HTTPRequestHead) -> RequestAdmission {
        .buffer(limit: 1 << 10, on: head.path.hasPrefix("/inline") ? .connection : .worker)
    }

    @Test("with every worker held by a slow request, requests admitted to the connection's thread are still answered")
    func connectionThreadAnswersWhileWorkersAreHeld() throws {
        let held = Atomic<Int>(0)
        let release = Atomic<Bool>(false)
        let responder = RecordingResponder(admission: Self.byPath) { request in
            if request.path == "/slow" {
                held.add(1, ordering: .acquiringAndReleasing)
                // Held until the test is done with the fast requests (or the wait gives up).
                _ = eventually(within: 30) { release.load(ordering: .acquiring) }
            }
            return HTTPResponse(status: 200, body: .bytes(Array(request.path.utf8)))
        }
        // One I/O thread: the held requests' connections and the fast ones share it.
        try withServer(
            responder,
            configure: {
                $0.ioThreads = 1
                $0.threadPoolSize = 2
            }
        ) { port in
            defer { release.store(true, ordering: .releasing) }
            let slow = try (0..<2).map { _ in try RawHTTPConnection(port: port) }
            for connection in slow {
                try connection.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
            }
            try #require(eventually { held.load(ordering: .acquiring) == 2 })
            // Both workers are now inside the responder. A worker-bound request would wait for
            // one (and this read would time out); these are answered on the I/O thread.
            let fast = try RawHTTPConnection(port: port, readTimeoutSeconds: 5)
            for index in 0..<3 {
                try fast.send("POST /inline/\(index) HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi")
                let response = try fast.readResponse()
                #expect(response.status == 200)
                #expect(response.body == Array("/inline/\(index)".utf8))
            }
            #expect(held.load(ordering: .acquiring) == 2)
            release.store(true, ordering: .releasing)
            for connection in slow {
                #expect(try connection.readResponse().body == Array("/slow".utf8))
            }
        }
        let inline = responder.seenRequests.filter { $0.path.hasPrefix("/inline") }
        #expect(inline.map(\.body) == Array(repeating: Array("hi".utf8), count: 3))
    }
}

import Foundation
import Glibc
import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Synchronization
import Testing

@Suite("HTTPServer starts, serves concurrently and stops")
struct HTTPServerLifecycleTests {
    @Test("port 0 binds a real free port")
    func portZero() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: RecordingResponder())
        let port = try server.start()
        defer { server.stop() }
        #expect(port != 0)
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
    }

    @Test("starting a second server on a port in use throws a clear error")
    func addressInUse() throws {
        let first = HTTPServer(configuration: HTTPServerConfiguration(), responder: RecordingResponder())
        let port = try first.start()
        defer { first.stop() }
        var configuration = HTTPServerConfiguration()
        configuration.port = port
        let second = HTTPServer(configuration: configuration, responder: RecordingResponder())
        let error = try #require(throws: HTTPServerError.self) { try second.start() }
        guard case .startFailed(let host, let failedPort, let reason) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(host == "127.0.0.1")
        #expect(failedPort == port)
        #expect(reason.contains("in use"), "reason: \(reason)")
        #expect(String(describing: error).contains("127.0.0.1:\(port)"))
    }

    @Test("a running server refuses a second start; a stopped one starts again; stop is idempotent")
    func startStopStates() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: RecordingResponder())
        _ = try server.start()
        #expect(throws: HTTPServerError.alreadyRunning) { try server.start() }
        server.stop()
        server.stop()
        let port = try server.start()
        defer { server.stop() }
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
    }

    @Test("a bad host or setting is rejected before binding")
    func badConfiguration() {
        var configuration = HTTPServerConfiguration()
        configuration.host = "example.com"
        #expect(throws: HTTPServerError.invalidHost("example.com")) {
            try HTTPServer(configuration: configuration, responder: RecordingResponder()).start()
        }
        configuration = HTTPServerConfiguration()
        configuration.threadPoolSize = 0
        #expect(throws: HTTPServerError.invalidConfiguration("threadPoolSize", 0)) {
            try HTTPServer(configuration: configuration, responder: RecordingResponder()).start()
        }
    }

    @Test(
        "localhost and the IPv6 loopback can be listened on", arguments: [("localhost", "127.0.0.1"), ("::1", "::1")])
    func hosts(host: String, connectTo: String) throws {
        let responder = RecordingResponder()
        try withServer(responder, configure: { $0.host = host }) { port in
            let connection = try RawHTTPConnection(port: port, host: connectTo)
            try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try connection.readResponse().status == 200)
        }
        #expect(responder.seenRequests.first?.remoteAddress == connectTo)
    }

    @Test("64 concurrent clients are served by every worker at once, and all answered")
    func concurrentClients() throws {
        // Each request waits inside the responder until all 8 workers hold one, which only
        // happens if the server runs 8 of them at the same time.
        let inside = Atomic<Int>(0)
        let peak = Atomic<Int>(0)
        let gaveUp = Atomic<Bool>(false)
        let responder = RecordingResponder { _ in
            let now = inside.add(1, ordering: .acquiringAndReleasing).newValue
            peak.max(now, ordering: .acquiringAndReleasing)
            // Once one wait has given up, the rest do not wait: a failure stays quick.
            let reached = eventually(within: 5) {
                peak.load(ordering: .acquiring) >= 8 || gaveUp.load(ordering: .acquiring)
            }
            if !reached { gaveUp.store(true, ordering: .releasing) }
            inside.subtract(1, ordering: .acquiringAndReleasing)
            return HTTPResponse(status: 200)
        }
        try withServer(responder, configure: { $0.threadPoolSize = 8 }) { port in
            // All requests are sent before any answer is read.
            let connections = try (0..<64).map { _ in try RawHTTPConnection(port: port) }
            for (index, connection) in connections.enumerated() {
                try connection.send("GET /slow/\(index) HTTP/1.1\r\nHost: h\r\n\r\n")
            }
            for connection in connections {
                #expect(try connection.readResponse().status == 200)
            }
        }
        #expect(responder.seenRequests.count == 64)
        #expect(peak.load(ordering: .acquiring) == 8)
    }

    @Test("a slow responder does not hold up a fast request on another connection")
    func slowDoesNotBlockFast() throws {
        let slowEntered = Atomic<Bool>(false)
        let fastDone = Atomic<Bool>(false)
        let responder = RecordingResponder { request in
            if request.path == "/slow" {
                slowEntered.store(true, ordering: .releasing)
                // Held until every fast request has been answered (or the wait gives up).
                _ = eventually { fastDone.load(ordering: .acquiring) }
            }
            return HTTPResponse(status: 200)
        }
        try withServer(responder, configure: { $0.threadPoolSize = 2 }) { port in
            let slow = try RawHTTPConnection(port: port)
            try slow.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
            try #require(eventually { slowEntered.load(ordering: .acquiring) })
            // Several fresh connections, so some land on the MHD thread serving /slow's.
            for _ in 0..<8 {
                let fast = try RawHTTPConnection(port: port, readTimeoutSeconds: 5)
                try fast.send("GET /fast HTTP/1.1\r\nHost: h\r\n\r\n")
                #expect(try fast.readResponse().status == 200)
            }
            fastDone.store(true, ordering: .releasing)
            #expect(try slow.readResponse().status == 200)
        }
    }

    @Test(
        "many keep-alive requests over several connections are all answered in order",
        arguments: [ResponderThread.connection, .worker])
    func manyKeepAliveRequests(thread: ResponderThread) throws {
        let responder = RecordingResponder(on: thread) { request in
            HTTPResponse(status: 200, body: .bytes(Array(request.path.utf8)))
        }
        try withServer(responder) { port in
            let connections = try (0..<8).map { _ in try RawHTTPConnection(port: port) }
            for round in 0..<200 {
                for (index, connection) in connections.enumerated() {
                    try connection.send("GET /\(index)/\(round) HTTP/1.1\r\nHost: h\r\n\r\n")
                }
                for (index, connection) in connections.enumerated() {
                    let response = try connection.readResponse()
                    #expect(response.body == Array("/\(index)/\(round)".utf8))
                }
            }
        }
        #expect(responder.seenRequests.count == 1600)
    }

    @Test("stop returns promptly with an idle keep-alive connection open, and closes it")
    func stopWithIdleConnection() throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: RecordingResponder())
        let port = try server.start()
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try connection.readResponse().status == 200)
        // stop waits for requests, not for idle connections: it returns well before its
        // drain timeout (10 s) would end a wait.
        let stopped = Atomic<Bool>(false)
        let stopper = Thread {
            server.stop(); stopped.store(true, ordering: .releasing)
        }
        stopper.start()
        #expect(eventually(within: 5) { stopped.load(ordering: .acquiring) })
        #expect(try connection.readUntilClosed().isEmpty)
    }

    @Test("stop does not wait for a client still sending its head, and closes it")
    func stopWithUnfinishedHead() throws {
        let responder = RecordingResponder()
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: responder)
        let port = try server.start()
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET /never-finished HTTP/1.1\r\nHost: h\r\n")
        // A round trip on a second connection gives the server time to read the request line.
        let probe = try RawHTTPConnection(port: port)
        try probe.send("GET /probe HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try probe.readResponse().status == 200)
        // Well before the drain timeout (10 s) and the header deadline (10 s) would end a wait.
        let stopped = Atomic<Bool>(false)
        let stopper = Thread {
            server.stop()
            stopped.store(true, ordering: .releasing)
        }
        stopper.start()
        #expect(eventually(within: 5) { stopped.load(ordering: .acquiring) })
        #expect(try connection.readUntilClosed().isEmpty)
    }

    @Test(
        "stop lets a request already in the responder finish and be answered, on the connection's thread or a worker",
        arguments: [ResponderThread.connection, .worker])
    func stopDrainsInFlight(thread: ResponderThread) throws {
        let entered = Atomic<Bool>(false)
        let responder = RecordingResponder(on: thread) { _ in
            entered.store(true, ordering: .releasing)
            usleep(300_000)
            return HTTPResponse(status: 200, body: .bytes(Array("late".utf8)))
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(), responder: responder)
        let port = try server.start()
        let connection = try RawHTTPConnection(port: port)
        try connection.send("GET /slow HTTP/1.1\r\nHost: h\r\n\r\n")
        try #require(eventually { entered.load(ordering: .acquiring) })
        server.stop()
        let response = try connection.readResponse()
        #expect(response.status == 200)
        #expect(response.body == Array("late".utf8))
    }
}

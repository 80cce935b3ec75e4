import Dispatch
import Foundation
import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Synchronization
import Testing

/// Uploads whose sink blocks (a slow data disk) with one I/O thread: the sink's writes must not
/// hold the thread that serves every other connection.
@Suite("HTTPServer writes streamed bodies off its I/O threads")
struct HTTPServerSlowSinkTests {
    /// Twice and more the body buffer of an upload, so a blocked sink pauses the connection.
    static let body = binaryBytes(count: 2 << 20)

    @Test(
        "while a sink's writes are blocked another connection is answered, and the upload then completes intact",
        arguments: [false, true])
    func blockedSinkHoldsNoIOThread(chunked: Bool) throws {
        let sink = GatedSink()
        let responder = Self.responder(sink)
        try withServer(responder, configure: { $0.ioThreads = 1 }) { port in
            let upload = BackgroundUpload(port: port, body: Self.body, chunked: chunked)
            // Released however the test goes, or stopping the server could wait on the sink.
            defer { sink.release() }
            try #require(eventually { sink.writesStarted > 0 })
            let other = try RawHTTPConnection(port: port, readTimeoutSeconds: 10)
            try other.send("GET /feed HTTP/1.1\r\nHost: h\r\n\r\n")
            #expect(try other.readResponse().status == 200)
            sink.release()
            #expect(eventually(within: 60) { upload.outcome != nil })
            #expect(upload.outcome == .answered(200))
        }
        #expect(sink.recorded.received == Self.body)
        #expect(sink.recorded.abandonCount == 0)
        #expect(responder.seenRequests.count == 2)
    }

    @Test("an upload paused for a blocked sink is closed at the idle timeout, and the sink is abandoned once")
    func pausedUploadHasADeadline() throws {
        let sink = GatedSink()
        let responder = Self.responder(sink)
        try withServer(
            responder,
            configure: {
                $0.ioThreads = 1
                $0.idleTimeoutSeconds = 1
                // No rate floor: the idle timeout alone must end the paused upload.
                $0.minimumStreamedBodyBytesPerSecond = 0
            }
        ) { port in
            let upload = BackgroundUpload(port: port, body: Self.body)
            defer { sink.release() }
            #expect(eventually(within: 20) { upload.outcome != nil })
            #expect(upload.outcome == .closed)
            sink.release()
            #expect(eventually { sink.recorded.abandonCount > 0 })
        }
        #expect(sink.recorded.abandonCount == 1)
        #expect(responder.seenRequests.isEmpty)
    }

    @Test("stopping the server ends an upload paused for a blocked sink")
    func stopResumesPausedUpload() throws {
        let sink = GatedSink()
        let responder = Self.responder(sink)
        var configuration = HTTPServerConfiguration()
        configuration.ioThreads = 1
        configuration.shutdownTimeoutSeconds = 1
        let server = HTTPServer(configuration: configuration, responder: responder)
        let port = try server.start()
        defer { sink.release() }
        let upload = BackgroundUpload(port: port, body: Self.body)
        try #require(eventually { sink.writesStarted > 0 })
        let stopping = StopInBackground(server)
        // The paused connection is resumed and closed before the daemon stops; the stop then
        // waits for the blocked writer to abandon the sink.
        #expect(eventually(within: 20) { upload.outcome != nil })
        #expect(upload.outcome == .closed)
        sink.release()
        #expect(eventually(within: 20) { stopping.done })
        #expect(sink.recorded.abandonCount == 1)
        #expect(responder.seenRequests.isEmpty)
    }

    /// Streams PUTs into `sink`; answers anything else on the connection's own I/O thread.
    static func responder(_ sink: GatedSink) -> RecordingResponder {
        RecordingResponder(admission: { head in
            head.method == "PUT" ? .stream(sink) : .buffer(limit: 0, on: .connection)
        })
    }
}

/// A sink whose writes all wait until `release()`, then record as `recorded` does.
final class GatedSink: HTTPBodySink {
    let recorded = RecordingSink()
    private let gate = DispatchSemaphore(value: 0)
    private let started = Atomic<Int>(0)

    var writesStarted: Int { started.load(ordering: .acquiring) }

    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        started.add(1, ordering: .releasing)
        // Each write takes the permit and hands it back, so one release lets every write through.
        gate.wait()
        gate.signal()
        return recorded.write(chunk)
    }

    func abandon() {
        recorded.abandon()
    }

    func release() {
        gate.signal()
    }
}

/// A PUT of `body` sent and answered on a thread of its own (its sends block while the server
/// holds back).
final class BackgroundUpload: Sendable {
    enum Outcome: Equatable {
        case answered(Int)
        /// The server closed the connection (or the send failed) without an answer.
        case closed
    }

    private let result = Mutex<Outcome?>(nil)

    var outcome: Outcome? { result.withLock { $0 } }

    /// `chunked`: sent with `Transfer-Encoding: chunked`, in chunks of 100,000 bytes.
    init(port: UInt16, body: [UInt8], chunked: Bool = false) {
        Thread.detachNewThread { [self] in
            let outcome: Outcome
            do {
                let connection = try RawHTTPConnection(port: port, readTimeoutSeconds: 60)
                try connection.sendPut("/up", body: body, chunked: chunked)
                outcome = .answered(try connection.readResponse().status)
            } catch {
                outcome = .closed
            }
            result.withLock { $0 = outcome }
        }
    }
}

/// `server.stop()` on a thread of its own.
final class StopInBackground: Sendable {
    private let finished = Atomic<Bool>(false)

    var done: Bool { finished.load(ordering: .acquiring) }

    init(_ server: HTTPServer) {
        Thread.detachNewThread { [self] in
            server.stop()
            finished.store(true, ordering: .releasing)
        }
    }
}

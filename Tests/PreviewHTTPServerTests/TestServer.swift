import Glibc
import PreviewCore
import PreviewHTTPServer
import PreviewTestSupport
import Synchronization
import Testing

/// Records every head, refusal and request it sees; admits with `admission` (by default
/// `.buffer(limit:on:)`) and answers with `answer`.
final class RecordingResponder: HTTPResponder {
    let admission: @Sendable (HTTPRequestHead) -> RequestAdmission
    let answer: @Sendable (HTTPRequest) -> HTTPResponse
    private let heads = Mutex<[HTTPRequestHead]>([])
    private let refusals = Mutex<[HTTPRefusal]>([])
    private let requests = Mutex<[HTTPRequest]>([])

    init(
        limit: Int = 1 << 20, on thread: ResponderThread = .worker,
        answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in
            HTTPResponse(status: 200, body: .bytes(Array("ok".utf8)))
        }
    ) {
        self.admission = { _ in .buffer(limit: limit, on: thread) }
        self.answer = answer
    }

    init(
        admission: @escaping @Sendable (HTTPRequestHead) -> RequestAdmission,
        answer: @escaping @Sendable (HTTPRequest) -> HTTPResponse = { _ in
            HTTPResponse(status: 200, body: .bytes(Array("ok".utf8)))
        }
    ) {
        self.admission = admission
        self.answer = answer
    }

    var seenHeads: [HTTPRequestHead] { heads.withLock { $0 } }
    var seenRefusals: [HTTPRefusal] { refusals.withLock { $0 } }
    var seenRequests: [HTTPRequest] { requests.withLock { $0 } }

    func admit(_ head: HTTPRequestHead) -> RequestAdmission {
        heads.withLock { $0.append(head) }
        return admission(head)
    }

    func refuse(_ head: HTTPRequestHead, reason: HTTPRefusal) -> HTTPResponse {
        refusals.withLock { $0.append(reason) }
        return HTTPResponse(status: 400, body: .bytes(Array("refused".utf8)))
    }

    func respond(to request: HTTPRequest) -> HTTPResponse {
        requests.withLock { $0.append(request) }
        return answer(request)
    }
}

/// Starts a server on a free loopback port, runs `body` with its port, stops it.
func withServer<T>(
    _ responder: any HTTPResponder, configure: (inout HTTPServerConfiguration) -> Void = { _ in },
    _ body: (UInt16) throws -> T
) throws -> T {
    var configuration = HTTPServerConfiguration()
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, responder: responder)
    let port = try server.start()
    defer { server.stop() }
    return try body(port)
}

/// A file under /tmp holding `bytes`, removed by the caller.
func temporaryFile(_ bytes: [UInt8]) throws -> String {
    var template = Array("/tmp/preview-http-server-XXXXXX".utf8CString)
    let fd = mkstemp(&template)
    guard fd >= 0 else { throw RawHTTPConnection.Failure(description: "mkstemp: errno \(errno)") }
    defer { close(fd) }
    let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    guard written == bytes.count else { throw RawHTTPConnection.Failure(description: "write: errno \(errno)") }
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Deterministic pseudo-random bytes covering every byte value.
func binaryBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

/// Raises this process's open-descriptor soft limit to its hard limit (for tests holding
/// over a thousand sockets); returns the new soft limit.
@discardableResult
func raiseOpenFileLimit() -> Int {
    var limit = rlimit()
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)  // the caller checks the result
    guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
    return Int(limit.rlim_cur)
}

/// A body sink that records what it is given, and can refuse after `acceptBytes`.
final class RecordingSink: HTTPBodySink {
    private let bytes = Mutex<[UInt8]>([])
    private let abandons = Atomic<Int>(0)
    let acceptBytes: Int

    init(acceptBytes: Int = .max) {
        self.acceptBytes = acceptBytes
    }

    var received: [UInt8] { bytes.withLock { $0 } }
    var abandonCount: Int { abandons.load(ordering: .acquiring) }

    func write(_ chunk: UnsafeRawBufferPointer) -> Bool {
        bytes.withLock { bytes in
            guard bytes.count + chunk.count <= acceptBytes else { return false }
            bytes.append(contentsOf: chunk)
            return true
        }
    }

    func abandon() {
        abandons.add(1, ordering: .releasing)
    }
}

extension RecordingSink {
    /// Sends `body` on `connection` one byte per 200 ms after this sink has the previous one
    /// (the connection must stay open meanwhile), then expects the 200.
    func receiveSlowly(_ body: [UInt8], on connection: RawHTTPConnection) throws {
        for (index, byte) in body.enumerated() {
            #expect(try !connection.waitForClose(milliseconds: 200))
            try connection.send([byte])
            try #require(eventually { received.count == index + 1 })
        }
        #expect(try connection.readResponse().status == 200)
    }
}

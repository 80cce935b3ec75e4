// The one raw HTTP/1.1 test client: exact bytes over a plain POSIX socket. Linux (glibc) only.
import PreviewCore

#if canImport(Glibc)
    import Glibc
#endif

/// One blocking HTTP/1.1 client connection over a plain POSIX socket. It sends exactly the bytes
/// given (nothing normalises the target, the framing or the headers) and parses responses just
/// enough for tests: for requests libcurl will not make (a body cut short, `Expect: 100-continue`
/// answered early, a head trickled byte by byte).
public final class RawHTTPConnection {
    /// Why a raw exchange failed (the socket call and errno's reason, or what was malformed).
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// One response: a `100 Continue` is a response of its own, with no body.
    public struct Response {
        public var status: Int
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]

        /// Every value of the header `name` (case-insensitive), in the order sent.
        public func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        public subscript(name: String) -> String? { values(name).first }

        /// The response head at the start of `bytes` (body left empty) and its length with the
        /// blank line that ends it; nil while that blank line has not arrived. Throws on a status
        /// line without a numeric status.
        public static func head(in bytes: [UInt8]) throws -> (response: Response, length: Int)? {
            guard
                let end = bytes.indices.dropLast(3).first(where: {
                    bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
                })
            else { return nil }
            let text = String(decoding: bytes[..<end], as: UTF8.self)
            var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
            let statusLine = lines.removeFirst().split(separator: " ")
            guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                throw Failure(description: "bad status line in \(text)")
            }
            let headers = lines.compactMap { line -> (name: String, value: String)? in
                guard let colon = line.firstIndex(of: ":") else { return nil }
                return (String(line[..<colon]), line[line.index(after: colon)...].trimmingSpacesAndTabs())
            }
            return (Response(status: status, headers: headers, body: []), end + 4)
        }
    }

    private let fd: Int32
    private var buffered: [UInt8] = []

    /// Connects to `host:port` (an IPv4 or IPv6 literal); `source` binds the local end to that
    /// address first (an IPv4 loopback address such as `127.0.0.2`, to look like another client).
    /// Reads give up after `readTimeoutSeconds` (a test deadline, never a measurement).
    public init(port: UInt16, host: String = "127.0.0.1", source: String? = nil, readTimeoutSeconds: Int = 15) throws {
        fd = try RawSocket.connect(host: host, port: port, source: source)
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        // A failed SO_RCVTIMEO only loses the deadline; the test run's own timeout still holds.
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Connects to the host and port of `target`.
    public convenience init(_ target: RawHTTPTarget, source: String? = nil, readTimeoutSeconds: Int = 15) throws {
        try self.init(port: target.port, host: target.host, source: source, readTimeoutSeconds: readTimeoutSeconds)
    }

    deinit { _ = close(fd) }  // nothing to flush: the test is done with the connection

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Sends all of `bytes` (MSG_NOSIGNAL: a closed peer is an error here, not a SIGPIPE).
    public func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawSocket.failure("send") }
            sent += n
        }
    }

    /// Sends `PUT path` with `body`, framed by Content-Length or, when `chunked`, as chunks of
    /// 100,000 bytes.
    public func sendPut(_ path: String, body: [UInt8], chunked: Bool) throws {
        guard chunked else {
            try send("PUT \(path) HTTP/1.1\r\nHost: h\r\nContent-Length: \(body.count)\r\n\r\n")
            try send(body)
            return
        }
        try send("PUT \(path) HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
        for start in stride(from: 0, to: body.count, by: 100_000) {
            let piece = Array(body[start..<min(start + 100_000, body.count)])
            try send(String(piece.count, radix: 16) + "\r\n")
            try send(piece)
            try send("\r\n")
        }
        try send("0\r\n\r\n")
    }

    /// Reads one response: its head, and its body when it has a Content-Length; `hasBody: false`
    /// for answers to HEAD. Throws on a chunked body (no server under test sends one here).
    public func readResponse(hasBody: Bool = true) throws -> Response {
        let (head, headLength) = try fill { try Response.head(in: $0) }
        buffered.removeSubrange(..<headLength)
        var response = head
        guard hasBody else { return response }
        if let length = response["Content-Length"].flatMap(Int.init) {
            _ = try fill { $0.count >= length ? length : nil }
            response.body = Array(buffered[..<length])
            buffered.removeSubrange(..<length)
        } else if response["Transfer-Encoding"]?.lowercased() == "chunked" {
            throw Failure(description: "chunked responses are not expected from the servers under test")
        }
        return response
    }

    /// True when the server closes the connection (EOF or reset) before sending anything more;
    /// throws when the read deadline passes first.
    public func closedByServer() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        if n > 0 { return false }
        throw RawSocket.failure("recv")
    }

    /// Reads until the server closes the connection (EOF or reset); returns what arrived.
    /// Throws if the read times out first.
    public func readUntilClosed() throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffered.append(contentsOf: chunk[..<n])
            } else if n == 0 || errno == ECONNRESET {
                defer { buffered = [] }
                return buffered
            } else {
                throw RawSocket.failure("recv")
            }
        }
    }

    /// Ends the connection from this side (FIN both ways), as a client that goes away.
    public func disconnect() {
        _ = shutdown(fd, Int32(SHUT_RDWR))  // the test then watches the server's side
    }

    /// Waits up to `milliseconds` for the server to close the connection, discarding anything
    /// it sends; true once closed (EOF or reset), false if still open at the deadline.
    public func waitForClose(milliseconds: Int) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let waitMilliseconds = Int32(
                max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&ready, 1, waitMilliseconds) >= 0 else {
                if errno == EINTR { continue }
                throw RawSocket.failure("poll")
            }
            guard ready.revents != 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        }
        return false
    }

    /// Reads until `done` finds what it needs in the buffered bytes.
    private func fill<T>(until done: ([UInt8]) throws -> T?) throws -> T {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let value = try done(buffered) { return value }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                if n == 0 { throw Failure(description: "connection closed") }
                throw RawSocket.failure("recv")
            }
            buffered.append(contentsOf: chunk[..<n])
        }
    }
}

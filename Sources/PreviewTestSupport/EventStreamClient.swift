// A client of `GET /api/feed/events` over a plain POSIX socket: reads the chunked
// `text/event-stream` answer as it arrives and hands out its events one by one.
#if canImport(Glibc)
    import Glibc
#endif

/// One server-sent event as a client sees it.
public struct ServerSentEvent: Equatable, Sendable {
    public var id: String?
    public var name: String
    public var data: String

    public init(id: String?, name: String, data: String) {
        self.id = id
        self.name = name
        self.data = data
    }
}

/// One event stream, opened by `init` (which reads the answer's head). Reads give up after
/// `readTimeoutSeconds`: a test deadline, never a measurement.
public final class EventStreamClient {
    public let status: Int
    public let headers: [(name: String, value: String)]
    private let fd: Int32
    /// Bytes received and not yet decoded from their chunks.
    private var raw: [UInt8] = []
    /// Decoded body bytes not yet parsed into events.
    private var body: [UInt8] = []
    private var ended = false
    /// Comment lines (heartbeats) seen so far.
    public private(set) var comments = 0
    /// The `retry:` the server asked for, once seen.
    public private(set) var retryMilliseconds: Int?
    private let readTimeoutSeconds: Int

    /// `receiveBuffer` shrinks the socket's receive buffer (a client that reads little); `source`
    /// is the local address to connect from (another loopback address is another client).
    public init(
        _ url: String, headers extra: [(String, String)] = [], readTimeoutSeconds: Int = 30,
        receiveBuffer: Int32? = nil,
        source: String? = nil
    ) throws {
        self.readTimeoutSeconds = readTimeoutSeconds
        let target = try RawHTTPTarget(url)
        let socket = try RawSocket.connect(host: target.host, port: target.port, source: source)
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer {
            _ = setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let head = target.head("GET", [("Accept", "text/event-stream")] + extra)
        let sent = head.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == head.count else {
            _ = close(socket)
            throw RawSocket.failure("send")
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let (response, length) = try RawHTTPConnection.Response.head(in: received) {
                fd = socket
                status = response.status
                headers = response.headers
                raw = Array(received[length...])
                return
            }
            let n = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                _ = close(socket)
                throw RawSocket.failure("recv (the event stream's head)")
            }
            received.append(contentsOf: chunk[..<n])
        }
    }

    deinit { _ = close(fd) }

    /// The first value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The next event, comments skipped; throws when the stream ends or `readTimeoutSeconds` pass
    /// first (heartbeats do not extend it).
    public func next() throws -> ServerSentEvent {
        let deadline = ContinuousClock.now + .seconds(readTimeoutSeconds)
        while true {
            if let event = parseEvent() { return event }
            guard !ended else { throw RawHTTPConnection.Failure(description: "the event stream ended") }
            guard ContinuousClock.now < deadline else {
                throw RawHTTPConnection.Failure(description: "no event within \(readTimeoutSeconds) s")
            }
            try receive()
            decodeChunks()
        }
    }

    /// Reads until `count` more comments (heartbeats) have arrived, keeping any events read meanwhile
    /// for `next()`.
    public func waitForComments(_ count: Int) throws {
        let target = comments + count
        while comments < target {
            guard !ended else { throw RawHTTPConnection.Failure(description: "the event stream ended") }
            try receive()
            decodeChunks()
            countComments()
        }
    }

    /// True once the server has closed the connection (EOF or reset); throws at the deadline.
    public func closedByServer() throws -> Bool {
        while !ended { try receive() }
        return true
    }

    /// Ends the connection from this side, as a client that goes away.
    public func disconnect() { _ = shutdown(fd, Int32(SHUT_RDWR)) }

    private func receive() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 || (n < 0 && errno == ECONNRESET) {
            ended = true
            return
        }
        guard n > 0 else { throw RawSocket.failure("recv (the event stream's read deadline)") }
        raw.append(contentsOf: chunk[..<n])
    }

    /// Moves whole chunks of `raw` into `body`; the last chunk (size 0) ends the stream.
    private func decodeChunks() {
        while let lineEnd = Self.find([13, 10], in: raw, from: 0) {
            let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: " "), radix: 16) else { return }
            let start = lineEnd + 2
            guard raw.count >= start + size + 2 else { return }
            if size == 0 { ended = true }
            body.append(contentsOf: raw[start..<(start + size)])
            raw.removeFirst(start + size + 2)
        }
    }

    private func countComments() {
        while let end = Self.find([10, 10], in: body, from: 0) {
            let block = String(decoding: body[..<end], as: UTF8.self)
            if block.split(separator: "\n").allSatisfy({ $0.hasPrefix(":") || $0.hasPrefix("retry:") }) {
                note(block)
                body.removeFirst(end + 2)
            } else {
                return
            }
        }
    }

    private func note(_ block: String) {
        for line in block.split(separator: "\n") {
            if line.hasPrefix(":") { comments += 1 }
            if line.hasPrefix("retry:") { retryMilliseconds = Int(line.dropFirst(6).trimmingCharacters(in: " ")) }
        }
    }

    /// The first event in `body`, blocks of comments only counted and dropped.
    private func parseEvent() -> ServerSentEvent? {
        while let end = Self.find([10, 10], in: body, from: 0) {
            let block = String(decoding: body[..<end], as: UTF8.self)
            body.removeFirst(end + 2)
            var event = ServerSentEvent(id: nil, name: "message", data: "")
            var hasData = false
            for line in block.split(separator: "\n") {
                if line.hasPrefix(":") || line.hasPrefix("retry:") {
                    note(String(line))
                    continue
                }
                let parts = line.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                let value = parts.count == 2 ? String(parts[1].drop { $0 == " " }) : ""
                switch parts[0] {
                case "id": event.id = value
                case "event": event.name = value
                case "data":
                    event.data += (hasData ? "\n" : "") + value
                    hasData = true
                default: break
                }
            }
            if hasData { return event }
        }
        return nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= needle.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], Array(bytes[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Character) -> String {
        String(drop { $0 == set }.reversed().drop { $0 == set }.reversed())
    }
}

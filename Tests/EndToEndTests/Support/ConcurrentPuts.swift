import Foundation
import PreviewTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A request body that is never held whole: a block of pseudo-random bytes of a prime length,
/// repeated, so every upload has its own bytes and a chunk stored at the wrong offset shows.
struct PatternBody {
    static let period = 65_521
    let length: Int
    let block: [UInt8]

    init(length: Int, seed: UInt64) {
        self.length = length
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        block = (0..<Self.period).map { _ in
            // xorshift64: cheap, and different for every seed.
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return UInt8(truncatingIfNeeded: state)
        }
    }

    /// The whole body, for checking what was stored (one at a time: 10 MiB each).
    func bytes() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        while bytes.count < length { bytes += block.prefix(length - bytes.count) }
        return bytes
    }
}

/// Many requests at once, each with a head and a `PatternBody`, over non-blocking sockets driven
/// by one poll(2) loop: every connection sends as fast as the server reads, concurrently, and
/// each response (or the connection's end) is recorded.
struct ConcurrentPuts {
    struct Request {
        var target: RawHTTPTarget
        var headers: [(String, String)]
        var body: PatternBody
        /// The local address to connect from (a 127.0.0.0/8 address), to spread connections.
        var source: String? = nil
    }

    struct Outcome {
        /// The response status, or nil when the connection ended without a whole response head.
        var status: Int?
        var bodyBytesSent: Int
    }

    private final class Connection {
        let fd: Int32
        let head: [UInt8]
        let body: PatternBody
        var sent = 0
        var sending = true
        var received: [UInt8] = []
        var outcome: Outcome?

        init(fd: Int32, head: [UInt8], body: PatternBody) {
            self.fd = fd
            self.head = head
            self.body = body
        }

        var bodySent: Int { max(0, sent - head.count) }
    }

    /// Runs every request to its end; `tick` runs at most every 50 ms (for sampling). Throws when
    /// `timeout` seconds pass first.
    static func run(_ requests: [Request], timeout: Double, tick: () -> Void = {}) throws -> [Outcome] {
        var connections: [Connection] = []
        defer {
            // Connections still open when the deadline throws: the test has failed, nothing to flush.
            for connection in connections where connection.outcome == nil { _ = close(connection.fd) }
        }
        for request in requests {
            let fd = try RawSocket.connect(
                host: request.target.host, port: request.target.port, source: request.source, blocking: false)
            connections.append(
                Connection(fd: fd, head: request.target.head("PUT", request.headers), body: request.body))
        }
        let deadline = Date().addingTimeInterval(timeout)
        var chunk = [UInt8](repeating: 0, count: 65536)
        var nextTick = Date()
        while connections.contains(where: { $0.outcome == nil }) {
            let now = Date()
            guard now < deadline else {
                throw RawHTTPConnection.Failure(description: "concurrent PUTs still running after \(timeout) s")
            }
            if now >= nextTick {
                tick()
                nextTick = now.addingTimeInterval(0.05)
            }
            let open = connections.filter { $0.outcome == nil }
            var fds = open.map {
                pollfd(fd: $0.fd, events: Int16(POLLIN) | ($0.sending ? Int16(POLLOUT) : 0), revents: 0)
            }
            guard poll(&fds, nfds_t(fds.count), 100) >= 0 || errno == EINTR else {
                throw RawHTTPConnection.Failure(description: "poll: \(String(cString: strerror(errno)))")
            }
            for (connection, polled) in zip(open, fds) {
                if polled.revents & Int16(POLLOUT) != 0, connection.sending { send(connection) }
                if polled.revents & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR)) != 0 {
                    receive(connection, into: &chunk)
                }
            }
        }
        return connections.compactMap(\.outcome)
    }

    /// Sends what the socket takes now: the head, then the body. A refused send (the server
    /// answered and closed) stops sending; the response is still read.
    private static func send(_ connection: Connection) {
        let total = connection.head.count + connection.body.length
        while connection.sent < total {
            let n: Int
            if connection.sent < connection.head.count {
                n = connection.head[connection.sent...].withUnsafeBytes {
                    Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
            } else {
                let offset = connection.bodySent
                let start = offset % PatternBody.period
                let count = min(PatternBody.period - start, connection.body.length - offset)
                n = connection.body.block[start..<(start + count)].withUnsafeBytes {
                    Glibc.send(connection.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
            }
            if n > 0 {
                connection.sent += n
            } else {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { connection.sending = false }
                return
            }
        }
        connection.sending = false
    }

    /// Reads what arrived; a whole response (head and Content-Length body) or the end of the
    /// connection finishes it.
    private static func receive(_ connection: Connection, into chunk: inout [UInt8]) {
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                connection.received += chunk[..<n]
                if let status = completeStatus(connection.received) { return finish(connection, status) }
                continue
            }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) { return }
            return finish(connection, completeStatus(connection.received, atEnd: true))
        }
    }

    private static func finish(_ connection: Connection, _ status: Int?) {
        connection.outcome = Outcome(status: status, bodyBytesSent: connection.bodySent)
        _ = close(connection.fd)  // the exchange is over; nothing left to flush
    }

    /// The status of a whole response in `bytes` (head and its Content-Length body); at the
    /// connection's end, of any whole head.
    private static func completeStatus(_ bytes: [UInt8], atEnd: Bool = false) -> Int? {
        guard let head = (try? RawHTTPConnection.Response.head(in: bytes)) ?? nil else { return nil }
        let length = head.response["Content-Length"].flatMap(Int.init) ?? 0
        return atEnd || bytes.count - head.length >= length ? head.response.status : nil
    }
}

/// The resident and peak resident memory of a process, from /proc/<pid>/status, in KiB.
struct ProcessMemory {
    var residentKiB: Int
    var peakKiB: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) throws -> Int {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") }
            guard let line,
                let value = Int(
                    line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
            else {
                throw ServiceProcessError("no \(name) in /proc/\(pid)/status")
            }
            return value
        }
        residentKiB = try field("VmRSS")
        peakKiB = try field("VmHWM")
    }
}

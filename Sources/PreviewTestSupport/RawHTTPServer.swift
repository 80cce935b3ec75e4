// A scripted HTTP/1.1 server on loopback, for the HTTP client's tests and the S3 retry tests: canned answers
// (such as 503, 503, 200), stalls, and the exact request lines and headers the client sent.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One request as it arrived on the socket, before any parsing a real server would do.
public struct CapturedRequest: Sendable {
    public var requestLine: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    public var connection: Int

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var headerNames: Set<String> { Set(headers.map { $0.name.lowercased() }) }
}

/// What the server does with a request.
public enum ServerAction: Sendable {
    /// Writes these bytes (a whole response, or interim responses followed by one) and keeps reading.
    case respond([UInt8])
    /// Sends nothing for a while, then closes.
    case stall(seconds: Double)
}

/// A deliberately small HTTP/1.1 server on 127.0.0.1 written with POSIX sockets: it records
/// request lines, headers and bodies byte for byte, and counts accepted connections. It
/// understands only `Content-Length` bodies, which is all the client sends.
public final class RawHTTPServer: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let handler: @Sendable (CapturedRequest) -> ServerAction
    private let state = Mutex(State())

    private struct State {
        var requests: [CapturedRequest] = []
        var acceptedConnections = 0
        var stopped = false
    }

    public init(handler: @escaping @Sendable (CapturedRequest) -> ServerAction) throws {
        self.handler = handler
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketFailure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else {
            _ = close(listener)  // ignored result: the bind/listen failure is what is reported
            throw SocketFailure(call: "bind/listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public var url: String { "http://127.0.0.1:\(port)" }
    public var requests: [CapturedRequest] { state.withLock { $0.requests } }
    public var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }

    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        // Wakes the blocked accept(). The accept loop closes the descriptor itself: closing it
        // here would let a new socket take the number while the loop still calls accept() on it.
        _ = shutdown(listener, Int32(SHUT_RDWR))  // ignored result: fails only if the loop has closed it
    }

    private func acceptLoop() {
        defer { _ = close(listener) }  // ignored result: a listening socket has nothing to flush
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR, !state.withLock({ $0.stopped }) { continue }
                return
            }
            let number = state.withLock { state in
                state.acceptedConnections += 1
                return state.acceptedConnections
            }
            var timeout = timeval(tv_sec: 10, tv_usec: 0)  // no thread outlives a test by much
            // Ignored result: without the timeout a stuck client only keeps a test thread longer.
            _ = setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            Thread.detachNewThread { [self] in serve(connection, number: number) }
        }
    }

    private func serve(_ connection: Int32, number: Int) {
        defer { _ = close(connection) }  // ignored result: the test has what it read; nothing to report
        var buffer: [UInt8] = []
        while let request = readRequest(connection, number: number, buffer: &buffer) {
            state.withLock { $0.requests.append(request) }
            switch handler(request) {
            case .respond(let bytes):
                guard writeAll(connection, bytes) else { return }
            case .stall(let seconds):
                Thread.sleep(forTimeInterval: seconds)
                return
            }
        }
    }

    private func readRequest(_ connection: Int32, number: Int, buffer: inout [UInt8]) -> CapturedRequest? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd: Int?
        while true {
            if let end = buffer.firstRange(of: terminator)?.upperBound {
                headEnd = end
                break
            }
            guard receive(connection, into: &buffer) else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: buffer[..<(headEnd - 4)], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst()
        let headers = lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        while buffer.count < headEnd + length {
            guard receive(connection, into: &buffer) else { return nil }
        }
        let body = Array(buffer[headEnd..<(headEnd + length)])
        buffer.removeFirst(headEnd + length)
        return CapturedRequest(requestLine: requestLine, headers: headers, body: body, connection: number)
    }

    private func receive(_ connection: Int32, into buffer: inout [UInt8]) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(connection, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func writeAll(_ connection: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes {
                send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// A complete response with `Content-Length`; `omitBody` for answers to HEAD.
    public static func response(
        _ status: Int, _ reason: String = "OK", headers: [(String, String)] = [], body: [UInt8] = [],
        omitBody: Bool = false
    ) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + (omitBody ? [] : body)
    }
}

public struct SocketFailure: Error {
    public var call: String
}

/// A loopback port nothing listens on now (bound, never listened on, then closed): for a
/// server started next, or a connection that must be refused.
public func freeLoopbackPort() throws -> UInt16 {
    let probe = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard probe >= 0 else { throw SocketFailure(call: "socket") }
    defer { _ = close(probe) }  // ignored result: an unconnected probe socket has nothing to flush
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(probe, $0, length) == 0 && getsockname(probe, $0, &length) == 0
        }
    }
    guard ok else { throw SocketFailure(call: "bind") }
    return UInt16(bigEndian: address.sin_port)
}

// A scripted HTTP/1.1 proxy on loopback that puts faults between a client and a real server: answers of
// its own (503), a connection reset in the middle of a request body, an answer the client never hears.
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A request head as the proxy saw it, numbered from 0 in arrival order over all connections.
public struct ProxiedRequest: Sendable {
    public var number: Int
    public var method: String
    /// The request target (path and query) exactly as sent.
    public var target: String
    public var headers: [(name: String, value: String)]
    public var connection: Int

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }
}

/// What the proxy does with a request, decided on its head (before any body byte is read).
public enum ProxyAction: Sendable {
    /// Passes the request on to the upstream and the upstream's answer back.
    case forward
    /// Reads the whole body and answers with these bytes; the upstream never sees the request.
    case respond([UInt8])
    /// Reads the first `afterBytes` body bytes, then resets the connection (SO_LINGER 0, then close: an RST), as
    /// a store failing in the middle of an upload does; the upstream never sees the request.
    case resetMidBody(afterBytes: Int)
    /// Passes the whole request on and waits for the upstream's answer, then resets the client's connection
    /// instead of relaying it: the server acted, and the client never hears of it.
    case forwardThenReset
    /// Passes the head and the first `afterBytes` body bytes on, then resets the client's connection but holds
    /// the upstream one open, body unfinished, until `releaseHeld()`: to the server the upload is still coming.
    case abandonMidBody(afterBytes: Int)
}

/// An HTTP/1.1 proxy on 127.0.0.1 written with POSIX sockets. Each request head goes to `decide`; the
/// upstream (set once it is listening: a server started after the proxy can have the proxy's URL as its public
/// URL) gets the request bytes unchanged, so signed URLs and `Host` still match. It understands
/// `Content-Length` framing only, which is what libcurl and the service send.
public final class ScriptedProxy: Sendable {
    public let port: UInt16
    private let listener: Int32
    private let decide: @Sendable (ProxiedRequest) -> ProxyAction
    private let state = Mutex(State())

    private struct State {
        var upstream: (host: String, port: UInt16)?
        var requests: [ProxiedRequest] = []
        var connections = 0
        var stopped = false
        /// Upstream sockets of `.abandonMidBody` requests.
        var held: [Int32] = []
    }

    public init(decide: @escaping @Sendable (ProxiedRequest) -> ProxyAction) throws {
        self.decide = decide
        (listener, port) = try Self.listen()
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    public var url: String { "http://127.0.0.1:\(port)" }
    /// Every request head seen so far.
    public var requests: [ProxiedRequest] { state.withLock { $0.requests } }

    /// Where `.forward` sends requests: an `http://127.0.0.1:PORT` URL.
    public func setUpstream(_ url: String) throws {
        let target = try RawHTTPTarget(url)
        state.withLock { $0.upstream = (target.host, target.port) }
    }

    /// Resets the upstream connections `.abandonMidBody` held open: the server sees those uploads break now.
    public func releaseHeld() {
        let held = state.withLock { state in
            defer { state.held = [] }
            return state.held
        }
        for fd in held { SocketEnd(fd: fd).reset() }
    }

    public func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        guard !wasStopped else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))  // wakes accept(); the loop closes the descriptor
        releaseHeld()
    }

    private static func listen() throws -> (Int32, UInt16) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw SocketFailure(call: "socket") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && Glibc.listen(listener, 16) == 0
                    && getsockname(listener, $0, &length) == 0
            }
        }
        guard ok else {
            _ = close(listener)  // ignored result: the bind/listen failure is what is reported
            throw SocketFailure(call: "bind/listen")
        }
        return (listener, UInt16(bigEndian: address.sin_port))
    }

    private func acceptLoop() {
        defer { _ = close(listener) }  // ignored result: a listening socket has nothing to flush
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR, !state.withLock({ $0.stopped }) { continue }
                return
            }
            let number = state.withLock { state in
                state.connections += 1
                return state.connections
            }
            Self.setReadTimeout(client, seconds: 15)
            Thread.detachNewThread { [self] in serve(ProxyConnection(client: client, number: number)) }
        }
    }

    private func serve(_ connection: ProxyConnection) {
        defer { connection.close() }
        while let head = connection.readHead() {
            let request = state.withLock { state in
                let request = ProxiedRequest(
                    number: state.requests.count, method: head.method, target: head.target, headers: head.headers,
                    connection: connection.number)
                state.requests.append(request)
                return request
            }
            let keepGoing: Bool
            switch decide(request) {
            case .respond(let bytes):
                keepGoing = connection.discardBody(head) && connection.client.writeAll(bytes)
            case .forward:
                keepGoing = connectUpstream(connection) && connection.forward(head, relayAnswer: true)
            case .forwardThenReset:
                if connectUpstream(connection) { _ = connection.forward(head, relayAnswer: false) }
                connection.resetClient()
                keepGoing = false
            case .resetMidBody(let count):
                connection.discardPart(head, bodyBytes: count)
                connection.resetBoth()
                keepGoing = false
            case .abandonMidBody(let count):
                if connectUpstream(connection), let upstream = connection.detachUpstream() {
                    connection.forwardPart(head, bodyBytes: count, to: upstream)
                    state.withLock { $0.held.append(upstream.fd) }
                }
                connection.resetBoth()
                keepGoing = false
            }
            if !keepGoing { return }
        }
    }

    private func connectUpstream(_ connection: ProxyConnection) -> Bool {
        if connection.upstream != nil { return true }
        guard let upstream = state.withLock({ $0.upstream }),
            let fd = try? RawSocket.connect(host: upstream.host, port: upstream.port)
        else { return false }
        Self.setReadTimeout(fd, seconds: 60)
        connection.upstream = SocketEnd(fd: fd)
        return true
    }

    static func setReadTimeout(_ fd: Int32, seconds: Int) {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        // Ignored result: without the timeout a stuck peer only keeps a test thread longer.
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
}

/// One socket of a proxied exchange, with what was read past the last message.
final class SocketEnd {
    let fd: Int32
    var buffer: [UInt8] = []

    init(fd: Int32) { self.fd = fd }

    /// Reads more bytes into `buffer`; false at the end of the stream or on an error.
    func receive() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    /// Reads until `buffer` holds a CRLFCRLF; the length of the head with it.
    func receiveHead() -> Int? {
        let terminator: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let end = buffer.firstRange(of: terminator)?.upperBound { return end }
            guard receive() else { return nil }
        }
    }

    func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// SO_LINGER with a zero timeout makes close() send an RST instead of a FIN.
    func reset() {
        var option = linger(l_onoff: 1, l_linger: 0)
        // Ignored result: without it the peer sees a FIN, still a broken exchange.
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
        _ = Glibc.close(fd)  // ignored result: the point is to drop the connection
    }
}

/// A client connection of the proxy and, once a request is forwarded, its own upstream connection.
final class ProxyConnection {
    struct Head {
        var bytes: [UInt8]
        var method: String
        var target: String
        var headers: [(name: String, value: String)]
        var contentLength: Int
    }

    let client: SocketEnd
    let number: Int
    var upstream: SocketEnd?
    private var closed = false

    init(client: Int32, number: Int) {
        self.client = SocketEnd(fd: client)
        self.number = number
    }

    func readHead() -> Head? {
        guard let end = client.receiveHead() else { return nil }
        let bytes = Array(client.buffer[..<end])
        client.buffer.removeFirst(end)
        var lines = String(decoding: bytes.dropLast(4), as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        let headers = lines.map { line -> (name: String, value: String) in
            guard let colon = line.firstIndex(of: ":") else { return (line, "") }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let length = headers.first { $0.name.lowercased() == "content-length" }.flatMap { Int($0.value) } ?? 0
        return Head(
            bytes: bytes, method: requestLine.first.map(String.init) ?? "",
            target: requestLine.count > 1 ? String(requestLine[1]) : "", headers: headers, contentLength: length)
    }

    /// Reads the request's body and drops it; false when the client went away first.
    func discardBody(_ head: Head) -> Bool {
        discardPart(head, bodyBytes: head.contentLength) == head.contentLength
    }

    /// Streams the head and the body upstream, reads the answer, and relays it when `relayAnswer`.
    func forward(_ head: Head, relayAnswer: Bool) -> Bool {
        guard let upstream, upstream.writeAll(head.bytes), pipeBody(count: head.contentLength, to: upstream),
            let answer = readAnswer(from: upstream, method: head.method)
        else { return false }
        return relayAnswer ? client.writeAll(answer.bytes) && !answer.closes : true
    }

    /// Sends the head and the first `bodyBytes` of the body to `upstream` (what arrives of them).
    func forwardPart(_ head: Head, bodyBytes: Int, to upstream: SocketEnd) {
        guard upstream.writeAll(head.bytes) else { return }
        _ = pipeBody(count: min(bodyBytes, head.contentLength), to: upstream)
    }

    /// Reads (up to) the first `bodyBytes` of the body and drops them; how many arrived.
    @discardableResult
    func discardPart(_ head: Head, bodyBytes: Int) -> Int {
        let wanted = min(bodyBytes, head.contentLength)
        var left = wanted
        while left > 0 {
            if client.buffer.isEmpty, !client.receive() { break }
            let taken = min(left, client.buffer.count)
            client.buffer.removeFirst(taken)
            left -= taken
        }
        return wanted - left
    }

    /// Takes the upstream connection away from this client connection (it will not be closed with it).
    func detachUpstream() -> SocketEnd? {
        defer { upstream = nil }
        return upstream
    }

    func resetClient() {
        guard !closed else { return }
        closed = true
        client.reset()
        upstream.map { _ = Glibc.close($0.fd) }  // ignored result: nothing is left to send
    }

    func resetBoth() {
        guard !closed else { return }
        closed = true
        client.reset()
        upstream?.reset()
    }

    func close() {
        guard !closed else { return }
        closed = true
        _ = Glibc.close(client.fd)  // ignored result: the exchange is over
        upstream.map { _ = Glibc.close($0.fd) }  // ignored result: likewise
    }

    private func pipeBody(count: Int, to upstream: SocketEnd) -> Bool {
        var left = count
        while left > 0 {
            if client.buffer.isEmpty, !client.receive() { return false }
            let taken = min(left, client.buffer.count)
            guard upstream.writeAll(Array(client.buffer[..<taken])) else { return false }
            client.buffer.removeFirst(taken)
            left -= taken
        }
        return true
    }

    /// One whole answer: its head, and a `Content-Length` body (none for HEAD, 1xx, 204, 304), or else
    /// everything until the upstream closes; `closes` when the connection ends with it.
    private func readAnswer(from upstream: SocketEnd, method: String) -> (bytes: [UInt8], closes: Bool)? {
        guard let end = upstream.receiveHead(),
            let parsed = try? RawHTTPConnection.Response.head(in: Array(upstream.buffer[..<end]))
        else { return nil }
        let status = parsed.response.status
        let bodiless = method == "HEAD" || status < 200 || status == 204 || status == 304
        let closes = parsed.response["Connection"]?.lowercased() == "close"
        if let length = bodiless ? 0 : parsed.response["Content-Length"].flatMap(Int.init) {
            while upstream.buffer.count < end + length { guard upstream.receive() else { return nil } }
            let bytes = Array(upstream.buffer[..<(end + length)])
            upstream.buffer.removeFirst(end + length)
            return (bytes, closes)
        }
        while upstream.receive() {}
        defer { upstream.buffer.removeAll() }
        return (upstream.buffer, true)
    }
}

import Glibc

/// A client over a plain POSIX socket: sends exactly the bytes given (nothing normalises
/// the target) and parses responses just enough for the tests.
final class RawHTTPConnection {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        func values(_ name: String) -> [String] {
            headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
        }

        subscript(name: String) -> String? { values(name).first }
    }

    private let fd: Int32
    private var buffered: [UInt8] = []

    /// Connects to `host:port`; `source` binds the local end to that address first (an IPv4
    /// loopback address such as `127.0.0.2`, to look like another client).
    init(port: UInt16, host: String = "127.0.0.1", source: String? = nil, readTimeoutSeconds: Int = 10) throws {
        let isIPv6 = host.contains(":")
        fd = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: readTimeoutSeconds, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let result: Int32
        if isIPv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            _ = inet_pton(AF_INET6, host, &address.sin6_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        } else {
            if let source {
                var local = sockaddr_in()
                local.sin_family = sa_family_t(AF_INET)
                _ = inet_pton(AF_INET, source, &local.sin_addr)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard bound == 0 else {
                    let code = errno
                    close(fd)
                    throw Failure(description: "bind to \(source): errno \(code)")
                }
            }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            _ = inet_pton(AF_INET, host, &address.sin_addr)
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw Failure(description: "connect to \(host):\(port): errno \(code)")
        }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw Failure(description: "send: errno \(errno)") }
            sent += n
        }
    }

    /// Reads one response; `hasBody: false` for answers to HEAD.
    func readResponse(hasBody: Bool = true) throws -> Response {
        let headEnd = try fill { buffered in
            buffered.indices.dropLast(3).first {
                buffered[$0] == 13 && buffered[$0 + 1] == 10 && buffered[$0 + 2] == 13 && buffered[$0 + 3] == 10
            }
        }
        let headText = String(decoding: buffered[..<headEnd], as: UTF8.self)
        buffered.removeSubrange(..<(headEnd + 4))
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line in \(headText)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: " "))
        }
        var response = Response(status: status, headers: headers, body: [])
        guard hasBody else { return response }
        if let length = response["Content-Length"].flatMap(Int.init) {
            _ = try fill { $0.count >= length ? length : nil }
            response.body = Array(buffered[..<length])
            buffered.removeSubrange(..<length)
        } else if response["Transfer-Encoding"] == "chunked" {
            throw Failure(description: "chunked responses are not expected from this server")
        }
        return response
    }

    /// Reads until the server closes the connection (EOF or reset); returns what arrived.
    /// Throws if the read times out first.
    func readUntilClosed() throws -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffered.append(contentsOf: chunk[..<n])
            } else if n == 0 || errno == ECONNRESET {
                defer { buffered = [] }
                return buffered
            } else {
                throw Failure(description: "recv: errno \(errno)")
            }
        }
    }

    /// Ends the connection from this side (FIN both ways), as a client that goes away.
    func disconnect() {
        _ = shutdown(fd, Int32(SHUT_RDWR))  // the test then watches the server's side
    }

    /// Waits up to `milliseconds` for the server to close the connection, discarding anything
    /// it sends; true once closed (EOF or reset), false if still open at the deadline.
    func waitForClose(milliseconds: Int) throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let waitMilliseconds = Int32(
                max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&ready, 1, waitMilliseconds) >= 0 else {
                if errno == EINTR { continue }
                throw Failure(description: "poll: errno \(errno)")
            }
            guard ready.revents != 0 else { continue }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        }
        return false
    }

    /// Reads until `done` finds what it needs in the buffered bytes.
    private func fill<T>(until done: ([UInt8]) -> T?) throws -> T {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let value = done(buffered) { return value }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw Failure(description: n == 0 ? "connection closed" : "recv: errno \(errno)")
            }
            buffered.append(contentsOf: chunk[..<n])
        }
    }
}

extension StringProtocol {
    fileprivate func trimmingCharacters(in character: Character) -> String {
        String(drop { $0 == character }.reversed().drop { $0 == character }.reversed())
    }
}

import Foundation
import PreviewTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Why a raw-socket exchange with the service failed.
struct RawClientError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The host, port, and path-with-query of an `http://host:port/...` URL.
struct RawTarget {
    var host: String
    var port: UInt16
    var pathAndQuery: String

    init(_ url: String) throws {
        guard let components = URLComponents(string: url), let host = components.host,
            let port = components.port.flatMap(UInt16.init(exactly:)),
            let start = url.range(of: "\(host):\(port)")?.upperBound
        else { throw RawClientError("not an http://host:port URL: \(url)") }
        self.host = host
        self.port = port
        pathAndQuery = String(url[start...])
    }

    /// The request head text for `method` with `headers` (Host first, then as given).
    func head(_ method: String, _ headers: [(String, String)]) -> [UInt8] {
        var text = "\(method) \(pathAndQuery) HTTP/1.1\r\nHost: \(host):\(port)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        return Array((text + "\r\n").utf8)
    }
}

/// One blocking TCP connection over a plain POSIX socket, sending exactly the bytes given: for
/// requests libcurl will not make (a body cut short, `Expect: 100-continue` answered early).
final class RawConnection {
    private let fd: Int32
    private var buffered: [UInt8] = []

    /// A parsed response head and whatever body arrived with it (up to its Content-Length).
    struct Response {
        var status: Int
        var headers: [(name: String, value: String)]
        var body: [UInt8]

        subscript(name: String) -> String? {
            headers.first { $0.name.lowercased() == name.lowercased() }?.value
        }
    }

    /// Connects to `host:port`; reads give up after `readTimeout` seconds (a test deadline).
    init(host: String, port: UInt16, readTimeout: Int = 15) throws {
        fd = try RawSocket.connect(host: host, port: port, blocking: true)
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        // A failed SO_RCVTIMEO only loses the deadline; the test run's own timeout still holds.
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    convenience init(_ target: RawTarget) throws {
        try self.init(host: target.host, port: target.port)
    }

    deinit { _ = close(fd) }  // nothing to flush: the test is done with the connection

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw RawClientError("send: \(String(cString: strerror(errno)))") }
            sent += n
        }
    }

    /// Reads one response: its head, and its body when it has a Content-Length.
    func readResponse() throws -> Response {
        let end = try fill { bytes in
            bytes.indices.dropLast(3).first {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            }
        }
        let head = String(decoding: buffered[..<end], as: UTF8.self)
        buffered.removeSubrange(..<(end + 4))
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw RawClientError("bad status line in \(head)")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = Response(status: status, headers: headers, body: [])
        if let length = response["Content-Length"].flatMap(Int.init) {
            _ = try fill { $0.count >= length ? length : nil }
            response.body = Array(buffered[..<length])
            buffered.removeSubrange(..<length)
        }
        return response
    }

    /// True when the server closes the connection (EOF or reset) before sending anything more;
    /// throws when the read deadline passes first.
    func closedByServer() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 4096)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        if n > 0 { return false }
        throw RawClientError("recv: \(String(cString: strerror(errno)))")
    }

    private func fill<T>(until done: ([UInt8]) -> T?) throws -> T {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let value = done(buffered) { return value }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else {
                throw RawClientError(n == 0 ? "connection closed" : "recv: \(String(cString: strerror(errno)))")
            }
            buffered.append(contentsOf: chunk[..<n])
        }
    }
}

/// Socket setup shared by the blocking connection and the concurrent uploader.
enum RawSocket {
    /// A TCP connection to an IPv4 `host:port`, from `source` when given (any 127.0.0.0/8
    /// address works on loopback).
    static func connect(host: String, port: UInt16, source: String? = nil, blocking: Bool) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue)), 0)
        guard fd >= 0 else { throw RawClientError("socket: \(String(cString: strerror(errno)))") }
        do {
            if let source {
                var local = try address(source, port: 0)
                let bound = withUnsafePointer(to: &local) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
                guard bound == 0 else { throw RawClientError("bind \(source): \(String(cString: strerror(errno)))") }
            }
            var remote = try address(host, port: port)
            let result = withUnsafePointer(to: &remote) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 || (!blocking && errno == EINPROGRESS) else {
                throw RawClientError("connect \(host):\(port): \(String(cString: strerror(errno)))")
            }
            return fd
        } catch {
            _ = close(fd)  // never used
            throw error
        }
    }

    private static func address(_ host: String, port: UInt16) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw RawClientError("not IPv4: \(host)") }
        return address
    }
}

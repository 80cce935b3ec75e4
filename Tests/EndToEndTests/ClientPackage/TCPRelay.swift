import Foundation
import PreviewTestSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A byte-for-byte TCP relay on 127.0.0.1 in front of a server, which can cut every connection it
/// carries at once: a network drop under a long-lived event stream. It keeps each connection's
/// first bytes from the client (the request head), so a test can read what a reconnection sent.
final class TCPRelay: Sendable {
    let port: UInt16
    private let listener: Int32
    private let upstreamPort: UInt16
    private let state = Mutex(State())

    private struct State {
        var sockets: [Int32] = []
        var heads: [String] = []
        var stopped = false
    }

    init(upstream: String) throws {
        guard let target = URLComponents(string: upstream)?.port else {
            throw ServiceProcessError("relay: no port in \(upstream)")
        }
        upstreamPort = UInt16(target)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard fd >= 0, ok else { throw ServiceProcessError("relay: cannot listen") }
        listener = fd
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    deinit { stop() }

    var url: String { "http://127.0.0.1:\(port)" }

    /// The first bytes the client sent on each connection, in order of arrival.
    var heads: [String] { state.withLock { $0.heads } }

    /// Resets every connection carried now (SO_LINGER 0, then shutdown: both peers see it end).
    func cutAll() {
        let sockets = state.withLock { state in
            defer { state.sockets = [] }
            return state.sockets
        }
        for fd in sockets {
            var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
            // Ignored results: a socket its peer already closed needs no cutting.
            _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
            _ = shutdown(fd, Int32(SHUT_RDWR))
        }
    }

    func stop() {
        let first = state.withLock { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard first else { return }
        _ = shutdown(listener, Int32(SHUT_RDWR))  // wakes accept(); the loop closes it
        cutAll()
    }

    private func acceptLoop() {
        defer { _ = close(listener) }  // ignored result: a listening socket has nothing to flush
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR, !state.withLock({ $0.stopped }) { continue }
                return
            }
            guard let upstream = try? RawSocket.connect(host: "127.0.0.1", port: upstreamPort) else {
                _ = close(client)  // ignored result: the client sees the connection end
                continue
            }
            let index = state.withLock { state in
                state.sockets += [client, upstream]
                state.heads.append("")
                return state.heads.count - 1
            }
            Thread.detachNewThread { [self] in pump(from: client, to: upstream, head: index) }
            Thread.detachNewThread { [self] in pump(from: upstream, to: client, head: nil) }
        }
    }

    /// Copies bytes until either side ends, then ends both.
    private func pump(from source: Int32, to destination: Int32, head: Int?) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            if count <= 0 { break }
            if let head {
                let text = String(decoding: buffer[0..<count], as: UTF8.self)
                state.withLock { state in
                    if state.heads[head].count < 4096 { state.heads[head] += text }
                }
            }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes {
                    send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                if written <= 0 { break }
                sent += written
            }
            if sent < count { break }
        }
        // Ignored results: the other pump may have closed its side already.
        _ = shutdown(source, Int32(SHUT_RDWR))
        _ = shutdown(destination, Int32(SHUT_RDWR))
    }
}

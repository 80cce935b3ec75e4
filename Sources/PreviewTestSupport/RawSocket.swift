// TCP connections over plain POSIX sockets, for the raw HTTP test client and the end-to-end tests'
// concurrent uploader. Linux (glibc) only.
#if canImport(Glibc)
    import Glibc
#endif

/// Opens TCP connections to IPv4 or IPv6 literals, optionally from a chosen local address.
public enum RawSocket {
    /// A TCP socket connected to `host:port` (an IPv4 or IPv6 literal), or, with `blocking: false`, a
    /// non-blocking one whose connect may still be in progress. `source` binds the local end first
    /// (any 127.0.0.0/8 address works on loopback, to look like another client). The caller owns
    /// and closes the descriptor.
    public static func connect(host: String, port: UInt16, source: String? = nil, blocking: Bool = true) throws
        -> Int32
    {
        let family = isIPv6(host) ? AF_INET6 : AF_INET
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue)), 0)
        guard fd >= 0 else { throw failure("socket") }
        do {
            if let source {
                let bound = try withAddress(source, port: 0) { bind(fd, $0, $1) }
                guard bound == 0 else { throw failure("bind to \(source)") }
            }
            let result = try withAddress(host, port: port) { Glibc.connect(fd, $0, $1) }
            guard result == 0 || (!blocking && errno == EINPROGRESS) else {
                throw failure("connect to \(host):\(port)")
            }
            return fd
        } catch {
            _ = close(fd)  // never used: the failure above is what is reported
            throw error
        }
    }

    private static func isIPv6(_ host: String) -> Bool { host.contains(":") }

    /// Runs `body` with `host:port` as a socket address and its length.
    private static func withAddress<T>(
        _ host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) throws -> T {
        if isIPv6(host) {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else {
                throw RawHTTPConnection.Failure(description: "not an IPv6 literal: \(host)")
            }
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    body($0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw RawHTTPConnection.Failure(description: "not an IPv4 literal: \(host)")
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                body($0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }

    /// A failure of the socket call `call`, with the reason errno gives.
    static func failure(_ call: String) -> RawHTTPConnection.Failure {
        RawHTTPConnection.Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }
}

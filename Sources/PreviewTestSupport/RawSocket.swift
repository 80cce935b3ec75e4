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
        try withAddress(host, port: port) { remote, remoteLength, family in
            let fd = socket(family, Int32(SOCK_STREAM.rawValue) | (blocking ? 0 : Int32(SOCK_NONBLOCK.rawValue)), 0)
            guard fd >= 0 else { throw failure("socket") }
            do {
                if let source {
                    let bound = try withAddress(source, port: 0) { local, localLength, _ in
                        bind(fd, local, localLength)
                    }
                    guard bound == 0 else { throw failure("bind to \(source)") }
                }
                guard Glibc.connect(fd, remote, remoteLength) == 0 || (!blocking && errno == EINPROGRESS) else {
                    throw failure("connect to \(host):\(port)")
                }
                return fd
            } catch {
                _ = close(fd)  // never used: the failure above is what is reported
                throw error
            }
        }
    }

    /// Runs `body` with `host:port` as a socket address, its length and its address family.
    /// `host` must be an IPv4 or IPv6 literal (AI_NUMERICHOST: no name is looked up).
    private static func withAddress<T>(
        _ host: String, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t, Int32) throws -> T
    ) throws -> T {
        var hints = addrinfo()
        hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        defer { if let list { freeaddrinfo(list) } }
        guard status == 0, let info = list?.pointee, let address = info.ai_addr else {
            throw RawHTTPConnection.Failure(
                description: "not an IP address literal: \(host) (\(String(cString: gai_strerror(status))))")
        }
        return try body(address, info.ai_addrlen, info.ai_family)
    }

    /// A failure of the socket call `call`, with the reason errno gives.
    static func failure(_ call: String) -> RawHTTPConnection.Failure {
        RawHTTPConnection.Failure(description: "\(call): \(String(cString: strerror(errno)))")
    }
}

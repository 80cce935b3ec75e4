import Glibc
import PreviewCore

/// The socket address a server binds, parsed from `HTTPServerConfiguration.host` and `port`.
enum ListenAddress {
    case v4(sockaddr_in)
    case v6(sockaddr_in6)

    /// Accepts IPv4 and IPv6 literals (brackets optional: `[::1]`) and `localhost`
    /// (as 127.0.0.1). Names are not resolved: a listen address should not depend on DNS.
    init(host: String, port: UInt16) throws(HTTPServerError) {
        let literal = host == "localhost" ? "127.0.0.1" : HostAndPort.unbracketed(host)
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            self = .v4(v4)
            return
        }
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            self = .v6(v6)
            return
        }
        throw .invalidHost(host)
    }

    var isIPv6: Bool {
        if case .v6 = self { return true }
        return false
    }

    /// Calls `body` with the address as a `sockaddr`, valid only during the call.
    func withSocketAddress<Result>(_ body: (UnsafePointer<sockaddr>) -> Result) -> Result {
        switch self {
        case .v4(var address):
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
            }
        case .v6(var address):
            return withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1, body)
            }
        }
    }

    /// The group a peer address is counted under for the per-address connection limit.
    static func group(of address: UnsafePointer<sockaddr>) -> AddressGroup {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            return AddressGroup(IPAddress(ipv4: UInt32(bigEndian: ip)))
        case AF_INET6:
            var ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            return AddressGroup(ipv6: withUnsafeBytes(of: &ip) { Array($0) })
        default:
            return .none
        }
    }

    /// A peer address as text (`127.0.0.1`, `::1`); empty for other families.
    static func text(of address: UnsafePointer<sockaddr>) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let written: UnsafePointer<CChar>?
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ip = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            written = inet_ntop(AF_INET, &ip, &buffer, socklen_t(buffer.count))
        case AF_INET6:
            var ip = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            written = inet_ntop(AF_INET6, &ip, &buffer, socklen_t(buffer.count))
        default:
            written = nil
        }
        guard written != nil else { return "" }
        return buffer.withUnsafeBufferPointer { $0.baseAddress.map { String(cString: $0) } ?? "" }
    }
}

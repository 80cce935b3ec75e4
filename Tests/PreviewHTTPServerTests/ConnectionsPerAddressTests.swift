import Glibc
import PreviewCore
import Testing

@testable import PreviewHTTPServer

@Suite("The per-address connection limit counts IPv4 addresses and IPv6 /64s")
struct ConnectionsPerAddressTests {
    static func group(_ text: String) throws -> AddressGroup {
        var address = in6_addr()
        try #require(inet_pton(AF_INET6, text, &address) == 1)
        return AddressGroup(ipv6: withUnsafeBytes(of: &address) { Array($0) })
    }

    @Test("two addresses in one IPv6 /64 are one group; another /64 is another")
    func ipv6GroupsBySlash64() throws {
        #expect(try Self.group("2001:db8:1:2::1") == Self.group("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(try Self.group("2001:db8:1:2::1") != Self.group("2001:db8:1:3::1"))
    }

    @Test("an IPv4-mapped IPv6 address counts as its IPv4 address")
    func mappedIPv4IsIPv4() throws {
        #expect(try Self.group("::ffff:10.1.2.3") == AddressGroup(IPAddress(ipv4: 0x0A01_0203)))
        #expect(try Self.group("::ffff:10.1.2.3") != Self.group("::ffff:10.1.2.4"))
    }

    @Test("a group over its limit is refused until one of its connections closes")
    func limitIsPerGroup() throws {
        let counts = ConnectionsPerAddress(limit: 2)
        let first = try Self.group("2001:db8::1")
        let neighbour = try Self.group("2001:db8::2")
        let other = try Self.group("2001:db8:0:1::1")
        #expect(counts.add(first))
        #expect(counts.add(neighbour))
        #expect(!counts.add(first))
        #expect(counts.add(other))
        counts.remove(first)
        counts.remove(first)
        #expect(counts.add(neighbour))
    }
}

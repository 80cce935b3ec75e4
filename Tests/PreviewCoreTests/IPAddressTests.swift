import PreviewCore
import Testing

@Suite("IP addresses and CIDR blocks are parsed and matched without the C library")
struct IPAddressTests {
    @Test(
        "addresses read and are written back in their canonical form",
        arguments: [
            ("127.0.0.1", "127.0.0.1"), ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"),
            ("::", "::"), ("::1", "::1"), ("2001:DB8::7", "2001:db8::7"),
            ("2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"), ("2001:0db8:0000:0000:0000:0000:0002:0001", "2001:db8::2:1"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), ("::ffff:10.1.2.3", "10.1.2.3"),
            ("::ffff:a01:203", "10.1.2.3"), ("fe80::1:2", "fe80::1:2"), ("1::", "1::"),
            ("64:ff9b::192.0.2.33", "64:ff9b::c000:221"),
        ])
    func canonical(_ input: String, _ written: String) throws {
        let address = try #require(IPAddress(input))
        #expect(address.description == written)
        #expect(IPAddress(written) == address)
    }

    @Test(
        "malformed addresses are refused",
        arguments: [
            "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4 ", " 1.2.3.4", "1..2.3", "a.b.c.d", ":", ":::",
            "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", ":1::", "1::2:", "1:2:3:4:5:6:7", "::1.2.3", "::1.2.3.4:5",
            "g::1", "fe80::1%eth0", "[::1]", "unknown", "1.2.3.4/8", "1:2:3:4:5:6:7::8:9",
        ])
    func malformed(_ input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test("IPv4 and its IPv4-mapped IPv6 form are the same address")
    func mapped() throws {
        let mapped = try #require(IPAddress("::ffff:192.0.2.1"))
        #expect(mapped == IPAddress("192.0.2.1"))
        #expect(try #require(IPAddress("192.0.2.1")).isIPv4)
        #expect(try #require(IPAddress("2001:db8::1")).isIPv4 == false)
    }

    @Test("an IPv6 address is limited by its /64, an IPv4 address by itself")
    func limitGroup() throws {
        #expect(try #require(IPAddress("2001:db8:1:2:aaaa::1")).limitGroup == "2001:db8:1:2::/64")
        #expect(try #require(IPAddress("2001:db8:1:2:bbbb::9")).limitGroup == "2001:db8:1:2::/64")
        #expect(try #require(IPAddress("198.51.100.7")).limitGroup == "198.51.100.7")
    }

    @Test("CIDR blocks match the addresses under their prefix, and only those")
    func blocks() throws {
        let ten = try #require(CIDRBlock("10.0.0.0/8"))
        #expect(ten.contains(try #require(IPAddress("10.255.1.2"))))
        #expect(ten.contains(try #require(IPAddress("::ffff:10.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("11.0.0.1"))))
        #expect(!ten.contains(try #require(IPAddress("a00::1"))), "an IPv4 block never matches a plain IPv6 address")
        let odd = try #require(CIDRBlock("192.168.1.77/26"))
        #expect(odd.description == "192.168.1.64/26")
        #expect(odd.contains(try #require(IPAddress("192.168.1.127"))))
        #expect(!odd.contains(try #require(IPAddress("192.168.1.128"))))
        let host = try #require(CIDRBlock("203.0.113.9"))
        #expect(host.contains(try #require(IPAddress("203.0.113.9"))))
        #expect(!host.contains(try #require(IPAddress("203.0.113.10"))))
        let v6 = try #require(CIDRBlock("fd00::/8"))
        #expect(v6.contains(try #require(IPAddress("fdab:1::1"))))
        #expect(!v6.contains(try #require(IPAddress("fe00::1"))))
        let all = try #require(CIDRBlock("0.0.0.0/0"))
        #expect(all.contains(try #require(IPAddress("8.8.8.8"))))
        #expect(!all.contains(try #require(IPAddress("2001:db8::1"))))
        let wide = try #require(CIDRBlock("2001:db8:1:2:3ab::/72"))
        #expect(wide.description == "2001:db8:1:2:300::/72")
        #expect(wide.contains(try #require(IPAddress("2001:db8:1:2:3ff::1"))))
        #expect(!wide.contains(try #require(IPAddress("2001:db8:1:2:400::1"))))
    }

    @Test(
        "malformed blocks are refused",
        arguments: [
            "10.0.0.0/33", "::/129", "10.0.0.0/", "/8", "10.0.0.0/-1", "10.0.0.0/8/8", "10.0.0/8", "x/8", "::/0800",
        ])
    func malformedBlocks(_ input: String) {
        #expect(CIDRBlock(input) == nil)
    }
}

@Suite("the client address behind trusted proxies is the right-most X-Forwarded-For entry not trusted")
struct ClientAddressTests {
    let proxies = TrustedProxies(
        [
            CIDRBlock("10.0.0.0/8"), CIDRBlock("fd00::/8"), CIDRBlock("192.0.2.1"),
        ].compactMap { $0 })

    func client(_ peer: String, _ forwardedFor: [String], trusting: TrustedProxies? = nil) -> String? {
        (trusting ?? proxies).clientAddress(peer: peer, forwardedFor: forwardedFor)?.description
    }

    @Test("without trusted proxies, X-Forwarded-For is ignored")
    func noProxies() {
        #expect(client("10.1.1.1", ["203.0.113.5"], trusting: TrustedProxies()) == "10.1.1.1")
    }

    @Test("a peer that is not trusted is the client, whatever it forwards")
    func untrustedPeer() {
        #expect(client("198.51.100.1", ["203.0.113.5"]) == "198.51.100.1")
    }

    @Test("behind a trusted peer the right-most untrusted entry is the client; entries left of it are ignored")
    func rightMostUntrusted() {
        #expect(client("10.0.0.2", ["203.0.113.5"]) == "203.0.113.5")
        #expect(client("10.0.0.2", ["1.1.1.1, 203.0.113.5, 10.0.0.9"]) == "203.0.113.5")
        #expect(
            client("10.0.0.2", ["1.1.1.1", "203.0.113.5, 192.0.2.1"]) == "203.0.113.5", "several fields are one list")
        #expect(client("fd00::2", ["2001:db8::5 , fd00::3"]) == "2001:db8::5")
    }

    @Test("entries with ports or brackets are read as addresses")
    func portsAndBrackets() {
        #expect(client("10.0.0.2", ["[2001:db8::5]:4711"]) == "2001:db8::5")
        #expect(client("10.0.0.2", ["[2001:db8::6]"]) == "2001:db8::6")
        #expect(client("10.0.0.2", ["203.0.113.5:4711"]) == "203.0.113.5")
    }

    @Test("when every hop is trusted, the left-most one is the client; without the field, the peer")
    func allTrusted() {
        #expect(client("10.0.0.2", ["10.0.0.7, 10.0.0.8"]) == "10.0.0.7")
        #expect(client("10.0.0.2", []) == "10.0.0.2")
    }

    @Test("a malformed entry ends the walk: the client is the trusted hop that received it, never the text")
    func malformedEntry() {
        #expect(client("10.0.0.2", ["unknown, 10.0.0.7"]) == "10.0.0.7")
        #expect(client("10.0.0.2", ["203.0.113.5, _hidden"]) == "10.0.0.2")
        #expect(client("10.0.0.2", ["203.0.113.5,,10.0.0.7"]) == "10.0.0.7")
        #expect(client("10.0.0.2", ["[::1"]) == "10.0.0.2")
    }

    @Test("a peer that is no IP address (a unix socket) gives no client address")
    func unixPeer() {
        #expect(client("", ["203.0.113.5"]) == nil)
    }
}

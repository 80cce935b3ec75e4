import PreviewCore
import Testing

@Suite("host:port with IPv6 brackets is written and read in one place")
struct HostAndPortTests {
    @Test("an IPv6 host is written in brackets, others as they are")
    func format() {
        #expect(HostAndPort.format(host: "::1", port: 6379) == "[::1]:6379")
        #expect(HostAndPort.format(host: "10.0.0.1", port: 80) == "10.0.0.1:80")
        #expect(HostAndPort.format(host: "redis.local", port: 6380) == "redis.local:6380")
        #expect(HostAndPort.bracketed("[::1]") == "[::1]")
    }

    @Test("split takes the port after the last colon and removes the brackets")
    func split() throws {
        let v6 = try #require(HostAndPort.split("[2001:db8::7]:7001"))
        #expect(v6.host == "2001:db8::7" && v6.port == 7001)
        let v4 = try #require(HostAndPort.split("127.0.0.1:6379"))
        #expect(v4.host == "127.0.0.1" && v4.port == 6379)
        let empty = try #require(HostAndPort.split(":7000"))
        #expect(empty.host.isEmpty && empty.port == 7000)
        #expect(HostAndPort.split("no-port") == nil)
        #expect(HostAndPort.split("host:") == nil)
        #expect(HostAndPort.split("host:x1") == nil)
    }

    @Test("unbracketed removes only a pair of brackets around the whole host")
    func unbracketed() {
        #expect(HostAndPort.unbracketed("[::1]") == "::1")
        #expect(HostAndPort.unbracketed("::1") == "::1")
        #expect(HostAndPort.unbracketed("[") == "[")
    }
}

import Testing

@testable import PreviewRedis

/// The Redis Stream commands of webhook delivery reach the node that owns their stream.
@Suite("Redis Cluster routing of stream commands")
struct ClusterStreamRoutingTests {
    @Test("XREADGROUP and XREAD route by the first key after STREAMS, XGROUP and XINFO by the one after the subcommand")
    func streamCommandKeys() {
        let key = "sp:{hooks}:deliveries:0123456789abcdef"
        #expect(
            ClusterCommand.key(of: ["XREADGROUP", "GROUP", "senders", "c1", "COUNT", "4", "STREAMS", key, ">"]) == key)
        #expect(ClusterCommand.key(of: ["XREAD", "COUNT", "1", "streams", key, "0"]) == key)
        #expect(ClusterCommand.key(of: ["XREADGROUP", "GROUP", "g", "c"]) == nil)
        #expect(ClusterCommand.key(of: ["XGROUP", "CREATE", key, "senders", "0", "MKSTREAM"]) == key)
        #expect(ClusterCommand.key(of: ["XGROUP", "DELCONSUMER", key, "senders", "c1"]) == key)
        #expect(ClusterCommand.key(of: ["XINFO", "CONSUMERS", key, "senders"]) == key)
        for name in ["XACK", "XPENDING", "XCLAIM", "XAUTOCLAIM", "XADD", "XDEL", "XLEN", "XRANGE", "XTRIM"] {
            #expect(ClusterCommand.key(of: [name, key, "x"]) == key, "\(name)")
        }
    }

    @Test("stream reads may be regrouped per node; XREADGROUP, which moves the group, may not")
    func streamReadsAreReadOnly() {
        #expect(ClusterCommand(["XRANGE", "k", "-", "+"]).isReadOnly)
        #expect(ClusterCommand(["XPENDING", "k", "g"]).isReadOnly)
        #expect(!ClusterCommand(["XREADGROUP", "GROUP", "g", "c", "STREAMS", "k", ">"]).isReadOnly)
        #expect(!ClusterCommand(["XADD", "k", "*", "f", "v"]).isReadOnly)
    }
}

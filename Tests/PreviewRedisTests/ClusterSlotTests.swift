import Testing

@testable import PreviewRedis

@Suite("Redis Cluster key slots")
struct ClusterSlotTests {
    @Test("CRC16 matches the cluster specification's XMODEM test vector")
    func crc16TestVector() {
        #expect(ClusterSlot.crc16(Array("123456789".utf8)) == 0x31C3)
        #expect(ClusterSlot.crc16([UInt8]()) == 0)
    }

    @Test("Keys land on the slots CLUSTER KEYSLOT reports")
    func slotsOfKnownKeys() {
        #expect(ClusterSlot.of("foo") == 12182)
        #expect(ClusterSlot.of("somekey") == 11058)
        #expect(ClusterSlot.of("123456789") == 0x31C3 % 16384)
    }

    @Test(
        "Hash tags follow the specification's rules",
        arguments: [
            ("{user1000}.following", "user1000"),
            ("{user1000}.followers", "user1000"),
            ("foo{}{bar}", "foo{}{bar}"),
            ("foo{{bar}}zap", "{bar"),
            ("foo{bar}{zap}", "bar"),
            ("{", "{"),
            ("no-tag", "no-tag"),
            ("sp:{s:42}:preview", "s:42"),
        ])
    func hashTags(key: String, hashed: String) {
        #expect(Array(ClusterSlot.hashTag(Array(key.utf8))) == Array(hashed.utf8))
        #expect(ClusterSlot.of(key) == ClusterSlot.of(hashed) || hashed.hasPrefix("{"))
    }

    @Test("Every key of one stream, and every global key, shares its slot")
    func productKeysShareSlots() {
        let keys = ["preview", "version", "likers", "upload:u1", "retired", "deleting", "pending"].map {
            "sp:{s:77}:" + $0
        }
        #expect(Set(keys.map(ClusterSlot.of)).count == 1)
        #expect(ClusterSlot.of("sp:{gc}:streams") == ClusterSlot.of("other:{gc}:lease"))
        #expect(ClusterSlot.of("sp:{feed}:live") != ClusterSlot.of("sp:{gc}:streams"))
    }

    @Test("The key that routes a command is its first key, or an EVALSHA's first KEYS entry")
    func routingKeys() {
        #expect(ClusterCommand.key(of: ["HGETALL", "a:{s:1}:preview"]) == "a:{s:1}:preview")
        #expect(ClusterCommand.key(of: ["EVALSHA", "abc", "2", "k1", "k2", "arg"]) == "k1")
        #expect(ClusterCommand.key(of: ["EVALSHA", "abc", "0", "arg"]) == nil)
        #expect(ClusterCommand.key(of: ["PING"]) == nil)
        #expect(ClusterCommand.key(of: ["PUBLISH", "channel", "message"]) == nil)
        #expect(ClusterCommand.key(of: ["SCRIPT", "LOAD", "return 1"]) == nil)
    }

    @Test("Only pipelines of reads may be regrouped per node")
    func readOnlyCommands() {
        #expect(ClusterCommand(["HGETALL", "k"]).isReadOnly)
        #expect(ClusterCommand(["scard", "k"]).isReadOnly)
        #expect(!ClusterCommand(["ZADD", "k", "1", "m"]).isReadOnly)
        #expect(!ClusterCommand(["EVALSHA", "abc", "1", "k"]).isReadOnly)
    }

    @Test("A CLUSTER SLOTS reply maps each range to its primary, an empty host to the node asked")
    func slotMap() throws {
        func node(_ host: String, _ port: Int64) -> RedisValue {
            .array([.bulk(Array(host.utf8)), .integer(port), .bulk(Array("id".utf8))])
        }
        let reply = RedisValue.array([
            .array([.integer(0), .integer(5460), node("127.0.0.1", 7000), node("127.0.0.1", 7003)]),
            .array([.integer(5461), .integer(16383), node("", 7001)]),
        ])
        let map = try #require(ClusterSlotMap(slotsReply: reply, askedHost: "10.0.0.9"))
        #expect(map.owners[0] == "127.0.0.1:7000")
        #expect(map.owners[5460] == "127.0.0.1:7000")
        #expect(map.owners[5461] == "10.0.0.9:7001")
        #expect(map.owners[16383] == "10.0.0.9:7001")
        #expect(map.primaries == ["127.0.0.1:7000", "10.0.0.9:7001"])
        #expect(
            ClusterSlotMap(slotsReply: .array([.array([.integer(0), .integer(16384), node("h", 1)])]), askedHost: "h")
                == nil)
    }
}

/// One command of a cluster call with the slot its keys hash to. Pure code.
struct ClusterCommand {
    var args: [String]
    /// nil for a keyless command (PING, PUBLISH, SCRIPT LOAD...): any node may run it.
    var slot: Int?
    /// Set for EVALSHA, so a node that answers `NOSCRIPT` can be sent the source.
    var script: RedisScript?

    init(_ args: [String], script: RedisScript? = nil) {
        self.args = args
        self.script = script
        slot = Self.key(of: args).map(ClusterSlot.of)
    }

    /// The key that decides where `args` runs: the first key after the command name, for
    /// EVAL/EVALSHA the first of its KEYS, for XREAD/XREADGROUP the first after `STREAMS`, for
    /// XGROUP/XINFO the one after the subcommand; nil for the commands that take no key.
    static func key(of args: [String]) -> String? {
        guard let name = args.first?.uppercased() else { return nil }
        switch name {
        case "EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO":
            guard args.count > 3, let count = Int(args[2]), count > 0 else { return nil }
            return args[3]
        case "XINFO", "XGROUP":
            // XINFO STREAM <key>, XGROUP CREATE <key> ...: the subcommand comes first.
            return args.count > 2 ? args[2] : nil
        case "XREAD", "XREADGROUP":
            // ... STREAMS <key>... <id>...: the options (GROUP g c, COUNT n, BLOCK ms) come first.
            guard let streams = args.firstIndex(where: { $0.uppercased() == "STREAMS" }), streams + 1 < args.count
            else { return nil }
            return args[streams + 1]
        case "PING", "ECHO", "PUBLISH", "SCRIPT", "FUNCTION", "INFO", "CLUSTER", "ASKING", "TIME", "DBSIZE",
            "SUBSCRIBE", "PSUBSCRIBE", "AUTH", "SELECT", "HELLO", "CLIENT", "CONFIG", "COMMAND", "WAIT", "MULTI",
            "EXEC", "DISCARD", "READONLY", "READWRITE", "FLUSHALL", "FLUSHDB", "SCAN", "KEYS", "RANDOMKEY":
            return nil
        default:
            return args.count > 1 ? args[1] : nil
        }
    }

    /// True for commands that only read: a pipeline of them may be regrouped per node, since
    /// no one of them depends on another having run first.
    var isReadOnly: Bool { Self.isReadOnly(args) }

    /// True when `args` is a command that writes nothing (see `isReadOnly`).
    static func isReadOnly(_ args: [String]) -> Bool {
        guard let name = args.first?.uppercased() else { return false }
        return readOnly.contains(name)
    }

    private static let readOnly: Set<String> = [
        "GET", "MGET", "EXISTS", "TTL", "PTTL", "TYPE", "STRLEN", "HGET", "HMGET", "HGETALL", "HKEYS", "HVALS",
        "HLEN", "HEXISTS", "SCARD", "SISMEMBER", "SMISMEMBER", "SMEMBERS", "ZCARD", "ZCOUNT", "ZSCORE", "ZMSCORE",
        "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZREVRANGEBYSCORE", "ZRANK", "LLEN", "LRANGE", "PING", "XRANGE",
        "XREVRANGE", "XLEN", "XPENDING", "XINFO",
    ]
}

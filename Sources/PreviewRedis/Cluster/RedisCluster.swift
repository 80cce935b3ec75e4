import PreviewCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Redis Cluster client: the slot map comes from `CLUSTER SLOTS` of any known node, each
/// primary has its own `RedisPool` (all reporting to one `RedisMetrics`), and every command and
/// script call is sent to the primary that owns its keys (`ClusterCommand`).
///
/// Order: a pipeline is sent as runs of consecutive commands for the same node, one run after
/// the other, so its commands take effect in their order across nodes (a write-ahead such as
/// the sweep queue before a stream's script holds). Only a pipeline of read-only commands is
/// regrouped into one run per node. `eval(_:keys:args:after:)` sends its script only once the
/// commands before it are answered, so a write-ahead holds even when one of them is redirected.
///
/// Redirects: `MOVED` records the new owner, refreshes the whole map (at most every 100 ms)
/// and resends the command there; `ASK` sends `ASKING` and the command to the named node
/// without touching the map; `TRYAGAIN` (a script's or multi-key command's keys split by a
/// migration) is resent after 10, 20, 40, 80, then every 160 ms for up to 3 s, then answered as
/// the `.unavailable` error it is. A command is redirected at most `maxRedirects` times. Within
/// one pipeline, a redirected command is resent after the rest of its run was already run by the
/// node that refused it (commands for the same node, only while a slot moves). `NOSCRIPT` loads
/// the script on that node and resends. A connection failure is thrown (the command may or may
/// not have run) and makes the next call refresh the map, which finds a promoted replica after a
/// failover.
///
/// One `withConnection` keeps the connection it used on each node until it returns, so `WAIT`
/// is asked, on each node written to, on the connection that wrote (`RedisCommands`).
public final class RedisCluster: RedisClient, Sendable {
    public let endpoint: RedisClusterEndpoint
    /// Latency and failures of the calls to every node.
    public let metrics = RedisMetrics()
    private let maxIdle: Int
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let state = Mutex(State())
    private let scriptSHAs = Mutex<[RedisScript: String]>([:])
    private let movedCount = Atomic<Int>(0)
    private let askCount = Atomic<Int>(0)
    private let tryAgainCount = Atomic<Int>(0)
    /// Turns the node `dedicatedConnection` tries first.
    private let subscriptions = Atomic<Int>(0)

    static let maxRedirects = 8
    /// How long (in microseconds) a command answered `TRYAGAIN` is retried: a slot's migration.
    static let tryAgainBudget = 3_000_000
    static let refreshInterval = Duration.milliseconds(100)

    private struct State {
        var map = ClusterSlotMap()
        var pools: [String: RedisPool] = [:]
        /// True until the first map is read, and after a connection failure.
        var stale = true
        var lastRefresh: ContinuousClock.Instant?
    }

    /// Redirects followed since start, for logs.
    public struct Redirects: Sendable, Equatable {
        public var moved: Int
        public var ask: Int
        public var tryAgain: Int
    }

    /// Dials nothing up front: the first call reads the slot map. `maxIdle` is per node.
    public init(
        endpoint: RedisClusterEndpoint, maxIdle: Int = 16, connectTimeout: Double = 1, commandTimeout: Double = 2
    ) {
        self.endpoint = endpoint
        self.maxIdle = maxIdle
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
    }

    public var redirects: Redirects {
        Redirects(
            moved: movedCount.load(ordering: .relaxed), ask: askCount.load(ordering: .relaxed),
            tryAgain: tryAgainCount.load(ordering: .relaxed))
    }

    public func withConnection<T>(_ body: (any RedisCommands) throws -> T) throws -> T {
        let session = Session(cluster: self)
        defer { session.close() }
        return try body(session)
    }

    public var idleCount: Int {
        state.withLock { Array($0.pools.values) }.reduce(0) { $0 + $1.idleCount }
    }

    /// A connection to a known primary or a seed, a different one first on each call, so a
    /// resubscription after a node failed moves on to the next.
    public func dedicatedConnection(commandTimeout: Double) throws -> RedisConnection {
        let known = state.withLock { $0.map.primaries }
        let candidates = known + endpoint.seeds.map(\.hostAndPort).filter { !known.contains($0) }
        let first = subscriptions.wrappingAdd(1, ordering: .relaxed).oldValue
        var lastError: any Error = RedisError(kind: .connection, message: "\(endpoint) has no seed node")
        for offset in candidates.indices {
            do {
                return try RedisConnection(
                    endpoint: try nodeEndpoint(candidates[(first + offset) % candidates.count]),
                    connectTimeout: connectTimeout, commandTimeout: commandTimeout)
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    /// Routes the calls of one `withConnection`. Holds a connection per node it sent to (leased
    /// from that node's pool, given back by `close`), and which nodes it wrote to.
    private final class Session: RedisCommands {
        let cluster: RedisCluster
        private var held: [String: (pool: RedisPool, connection: RedisConnection)] = [:]
        /// Nodes written to: true while the held connection is the one that made every write
        /// there, false once it broke (a `WAIT` there can no longer vouch for them).
        private var written: [String: Bool] = [:]

        init(cluster: RedisCluster) {
            self.cluster = cluster
        }

        /// Gives every held connection back to its pool (dropped there when broken).
        func close() {
            for lease in held.values { lease.pool.release(lease.connection, after: nil) }
            held = [:]
        }

        func command(_ args: [String]) throws -> RedisValue {
            if args.first?.uppercased() == "WAIT" { return try wait(args) }
            return try Self.thrown(try execute([ClusterCommand(args)])[0])
        }

        func pipeline(_ commands: [[String]]) throws -> [RedisValue] {
            try execute(commands.map { ClusterCommand($0) })
        }

        func eval(_ script: RedisScript, keys: [String], args: [String]) throws -> RedisValue {
            try Self.thrown(try execute([try cluster.evalCommand(script, keys: keys, args: args)])[0])
        }

        func eval(_ script: RedisScript, keys: [String], args: [String], after commands: [[String]]) throws
            -> RedisValue
        {
            // The commands are answered (redirects followed) before the script is sent, even to
            // the same node: a redirected command never lands after the script.
            let call = try cluster.evalCommand(script, keys: keys, args: args)
            for case .error(let message) in try execute(commands.map { ClusterCommand($0) }) {
                throw RedisError.reply(message)
            }
            return try Self.thrown(try execute([call])[0])
        }

        func evalPipeline(_ script: RedisScript, calls: [(keys: [String], args: [String])]) throws -> [RedisValue] {
            guard let first = calls.first else { return [] }
            _ = try cluster.evalCommand(script, keys: first.keys, args: first.args)  // learns the SHA once
            return try execute(try calls.map { try cluster.evalCommand(script, keys: $0.keys, args: $0.args) })
        }

        private static func thrown(_ reply: RedisValue) throws -> RedisValue {
            if case .error(let message) = reply { throw RedisError.reply(message) }
            return reply
        }

        /// `WAIT` on the connection of every node written to; the smallest count (0 when a
        /// connection that wrote broke), or the count asked for when nothing was written.
        private func wait(_ args: [String]) throws -> RedisValue {
            var least: Int64?
            for (node, intact) in written {
                guard intact, let lease = held[node] else { return .integer(0) }
                let reply = try lease.pool.call(on: lease.connection) { try $0.command(args) }
                guard let count = reply.int else { return reply }
                least = Swift.min(least ?? count, count)
            }
            return .integer(least ?? (args.count > 1 ? Int64(args[1]) ?? 0 : 0))
        }

        /// Runs `commands` (see the type's comment for the order) and returns one reply per command,
        /// error replies inline.
        private func execute(_ commands: [ClusterCommand]) throws -> [RedisValue] {
            guard !commands.isEmpty else { return [] }
            try cluster.refreshIfStale()
            var nodes: [String] = []
            nodes.reserveCapacity(commands.count)
            for command in commands {
                // A keyless command goes with the one before it.
                nodes.append(
                    command.slot == nil && !nodes.isEmpty ? nodes[nodes.count - 1] : try cluster.owner(of: command.slot)
                )
            }
            var runs: [(node: String, indices: [Int])] = []
            if commands.allSatisfy(\.isReadOnly) {
                var position: [String: Int] = [:]
                for (index, node) in nodes.enumerated() {
                    if let run = position[node] {
                        runs[run].indices.append(index)
                    } else {
                        position[node] = runs.count
                        runs.append((node, [index]))
                    }
                }
            } else {
                for (index, node) in nodes.enumerated() {
                    if let last = runs.last, last.node == node {
                        runs[runs.count - 1].indices.append(index)
                    } else {
                        runs.append((node, [index]))
                    }
                }
            }
            var replies = [RedisValue](repeating: .null, count: commands.count)
            for run in runs {
                let answered = try send(run.indices.map { commands[$0].args }, to: run.node)
                for (index, reply) in zip(run.indices, answered) {
                    replies[index] = try settle(commands[index], reply: reply, from: run.node)
                }
            }
            return replies
        }

        /// Follows redirects and reloads scripts until the command has a final reply.
        private func settle(_ command: ClusterCommand, reply first: RedisValue, from firstNode: String) throws
            -> RedisValue
        {
            var reply = first
            var node = firstNode
            var asking = false
            var tryAgains = 0
            var waitedForMigration = 0  // microseconds
            var redirects = 0
            while redirects < RedisCluster.maxRedirects {
                guard case .error(let message) = reply else { return reply }
                if message.hasPrefix("NOSCRIPT"), let script = command.script {
                    _ = try cluster.load(script, on: node)
                } else if let redirect = ClusterRedirect(error: message) {
                    switch redirect {
                    case .moved(let slot, let host, let port):
                        cluster.movedCount.add(1, ordering: .relaxed)
                        node = ClusterSlotMap.address(
                            host: host.isEmpty ? RedisCluster.host(of: node) : host, port: port)
                        asking = false
                        cluster.state.withLock { $0.map.assign(slot: slot, to: node) }
                        // The command goes to the node MOVED named whether or not the rest of the map can be read now.
                        try? cluster.refresh(force: false)
                    case .ask(_, let host, let port):
                        cluster.askCount.add(1, ordering: .relaxed)
                        node = ClusterSlotMap.address(
                            host: host.isEmpty ? RedisCluster.host(of: node) : host, port: port)
                        asking = true
                    case .tryAgain:
                        cluster.tryAgainCount.add(1, ordering: .relaxed)
                        guard waitedForMigration < RedisCluster.tryAgainBudget else { return reply }
                        let pause = Swift.min(10_000 << Swift.min(tryAgains, 4), 160_000)
                        usleep(UInt32(pause))
                        tryAgains += 1
                        waitedForMigration += pause
                        redirects -= 1  // the same node again (with ASKING if it was asked): not a redirect
                    }
                } else {
                    return reply
                }
                redirects += 1
                if asking {
                    reply = try send([["ASKING"], command.args], to: node)[1]
                } else {
                    reply = try send([command.args], to: node)[0]
                }
            }
            return reply
        }

        /// Sends `commands` as one pipeline on this session's connection to `node`.
        private func send(_ commands: [[String]], to node: String) throws -> [RedisValue] {
            let lease: (pool: RedisPool, connection: RedisConnection)
            if let held = held[node] {
                lease = held
            } else {
                let pool = try cluster.pool(for: node)
                lease = (pool, try pool.lease())
                held[node] = lease
            }
            let writes = !commands.allSatisfy { $0.first?.uppercased() == "ASKING" || ClusterCommand.isReadOnly($0) }
            if writes, written[node] == nil { written[node] = true }
            do {
                let replies = try lease.pool.call(on: lease.connection) { try $0.pipeline(commands) }
                if lease.connection.isBroken { forget(node, after: nil) }
                return replies
            } catch {
                forget(node, after: error)
                if let error = error as? RedisError, error.kind == .connection || error.kind == .timeout {
                    cluster.state.withLock { $0.stale = true }
                }
                throw error
            }
        }

        /// Gives back the connection to `node` that broke; writes made on it can no longer be waited for.
        private func forget(_ node: String, after error: (any Error)?) {
            guard let lease = held.removeValue(forKey: node) else { return }
            lease.pool.release(lease.connection, after: error)
            if written[node] != nil { written[node] = false }
        }
    }

    // MARK: - Routing

    /// EVALSHA of `script`; its SHA1 is learnt once from SCRIPT LOAD on the node of its keys.
    fileprivate func evalCommand(_ script: RedisScript, keys: [String], args: [String]) throws -> ClusterCommand {
        let sha: String
        if let known = scriptSHAs.withLock({ $0[script] }) {
            sha = known
        } else {
            let node = try owner(of: keys.first.map(ClusterSlot.of))
            sha = try load(script, on: node)
        }
        return ClusterCommand(["EVALSHA", sha, String(keys.count)] + keys + args, script: script)
    }

    /// Sends `commands` on a connection of `node`'s pool, outside any session (map and scripts).
    private func send(_ commands: [[String]], to node: String) throws -> [RedisValue] {
        do {
            return try pool(for: node).withConnection { (connection: RedisConnection) in
                try connection.pipeline(commands)
            }
        } catch let error as RedisError where error.kind == .connection || error.kind == .timeout {
            state.withLock { $0.stale = true }
            throw error
        }
    }

    fileprivate func load(_ script: RedisScript, on node: String) throws -> String {
        let reply = try send([["SCRIPT", "LOAD", script.source]], to: node)[0]
        guard let sha = reply.string, !sha.isEmpty else {
            throw RedisError(
                kind: .protocolError, message: "SCRIPT LOAD of '\(script.name)' on \(node) answered \(reply)")
        }
        scriptSHAs.withLock { $0[script] = sha }
        return sha
    }

    /// The primary serving `slot`; for a keyless command (nil), any primary.
    fileprivate func owner(of slot: Int?) throws -> String {
        let known = state.withLock { state in slot.map { state.map.owners[$0] } ?? state.map.primaries.first }
        if let known { return known }
        try refresh(force: true)
        if let found = state.withLock({ state in slot.map { state.map.owners[$0] } ?? state.map.primaries.first }) {
            return found
        }
        throw RedisError(
            kind: .connection, message: "no node of \(endpoint) serves slot \(slot.map(String.init) ?? "any")")
    }

    fileprivate func pool(for node: String) throws -> RedisPool {
        try state.withLock { state in
            if let pool = state.pools[node] { return pool }
            let pool = RedisPool(
                endpoint: try nodeEndpoint(node), maxIdle: maxIdle, connectTimeout: connectTimeout,
                commandTimeout: commandTimeout, metrics: metrics)
            state.pools[node] = pool
            return pool
        }
    }

    /// The endpoint of `host:port`, with the seeds' credentials.
    private func nodeEndpoint(_ node: String) throws -> RedisEndpoint {
        guard let (host, port) = HostAndPort.split(node) else {
            throw RedisError(kind: .protocolError, message: "cluster node address '\(node)' has no port")
        }
        let seed = endpoint.seeds.first
        return RedisEndpoint(address: .tcp(host: host, port: port), username: seed?.username, password: seed?.password)
    }

    fileprivate static func host(of node: String) -> String {
        guard let colon = node.lastIndex(of: ":") else { return node }
        return String(node[..<colon])
    }

    // MARK: - Slot map

    fileprivate func refreshIfStale() throws {
        if state.withLock({ $0.stale }) { try refresh(force: true) }
    }

    /// Reads `CLUSTER SLOTS` from the known primaries, then the seeds, until one answers.
    /// Unless forced, does nothing within `refreshInterval` of the last refresh.
    fileprivate func refresh(force: Bool) throws {
        let now = ContinuousClock.now
        let candidates: [String]? = state.withLock { state in
            if !force, let last = state.lastRefresh, now - last < Self.refreshInterval { return nil }
            state.lastRefresh = now
            return state.map.primaries
        }
        guard let candidates else { return }
        var lastError: any Error = RedisError(kind: .connection, message: "\(endpoint) has no seed node")
        for node in candidates + endpoint.seeds.map(\.hostAndPort) {
            do {
                let reply = try send([["CLUSTER", "SLOTS"]], to: node)[0]
                guard let map = ClusterSlotMap(slotsReply: reply, askedHost: Self.host(of: node)),
                    !map.primaries.isEmpty
                else {
                    throw RedisError(
                        kind: .protocolError, message: "unusable CLUSTER SLOTS reply from \(node): \(reply)")
                }
                state.withLock { state in
                    state.map = map
                    state.stale = false
                }
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }
}

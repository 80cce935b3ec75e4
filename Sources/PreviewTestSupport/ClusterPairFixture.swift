import Foundation
import PreviewProcess
public import PreviewRedis

#if canImport(Glibc)
    import Glibc
#endif

/// The smallest Redis Cluster with a replica: one primary owning all 16384 slots and its replica (or, with
/// `secondIsReplica` false, a second primary owning no slot, to migrate slots to), on loopback TCP ports (bus
/// ports chosen too), each a child of the test in a fresh directory under /tmp, stopped with
/// SIGKILL and the directory removed by `stop()` or deinit. Persistence is off; the replica syncs diskless.
public final class ClusterPairFixture {
    public let directory: String
    public let primaryPort: Int
    public let replicaPort: Int
    private var children: [Int: ChildProcess] = [:]

    /// Starts both nodes, assigns every slot to the primary, makes the other its replica (or an empty primary),
    /// and waits until the cluster is up and the replica in sync.
    public init(secondIsReplica: Bool = true) throws {
        _ = signal(SIGPIPE, SIG_IGN)  // ignored result: the previous handler; hiredis writes with write()
        directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-cluster")
        let ports = try SentinelGroupFixture.freeLoopbackPorts(count: 4)
        primaryPort = ports[0]
        replicaPort = ports[1]
        do {
            guard let server = ChildProcess.executable(named: "redis-server") else {
                throw RedisServerError(message: "redis-server not found: install redis-server")
            }
            for (port, bus) in [(ports[0], ports[2]), (ports[1], ports[3])] {
                let arguments = [
                    server, "--port", String(port), "--cluster-port", String(bus), "--bind", "127.0.0.1",
                    "--cluster-enabled", "yes", "--cluster-config-file", "nodes-\(port).conf", "--save", "",
                    "--appendonly", "no", "--dir", directory, "--daemonize", "no", "--repl-diskless-sync", "yes",
                    "--repl-diskless-sync-delay", "0", "--logfile", "\(directory)/redis-\(port).log",
                ]
                children[port] = try ChildProcess.spawn(
                    arguments: arguments, stdoutPath: "\(directory)/stdout-\(port).log", diesWithParent: true)
            }
            try form(primaryBus: ports[2], replicate: secondIsReplica)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// `redis-cluster://127.0.0.1:<primary>`.
    public var url: String { "redis-cluster://127.0.0.1:\(primaryPort)" }

    /// A connection to the node on `port`.
    public func connection(port: Int) throws -> RedisConnection {
        try RedisConnection(
            endpoint: RedisEndpoint(address: .tcp(host: "127.0.0.1", port: port)), connectTimeout: 1,
            commandTimeout: 2)
    }

    /// Waits until the replica has acknowledged every write the primary has (up to 10 s); whether it did.
    public func replicaCaughtUp() -> Bool {
        eventually(within: 10) {
            guard let info = try? connection(port: primaryPort).command(["INFO", "replication"]).string,
                let primary = Self.number(after: "master_repl_offset:", in: info),
                let acknowledged = Self.number(after: ",offset=", in: info)
            else { return false }
            return acknowledged >= primary
        }
    }

    private static func number(after marker: String, in text: String) -> Int? {
        guard let start = text.range(of: marker)?.upperBound else { return nil }
        return Int(text[start...].prefix { $0.isNumber })
    }

    /// SIGSTOPs the replica: it stays connected but acknowledges nothing until `resumeReplica`.
    public func pauseReplica() { children[replicaPort]?.send(SIGSTOP) }

    public func resumeReplica() { children[replicaPort]?.send(SIGCONT) }

    /// SIGKILLs both nodes and removes the directory. Idempotent.
    public func stop() {
        for (port, child) in children {
            child.send(SIGCONT)
            child.send(SIGKILL)
            _ = child.waitForExit(timeout: 5)
            children[port] = nil
        }
        try? FileManager.default.removeItem(atPath: directory)  // best effort: the test's result matters more
    }

    /// The cluster node ID of the node on `port`.
    public func nodeID(port: Int) throws -> String {
        guard let id = try connection(port: port).command(["CLUSTER", "MYID"]).string else {
            throw RedisServerError(message: "CLUSTER MYID gave no node ID")
        }
        return id
    }

    private func form(primaryBus: Int, replicate: Bool) throws {
        let up = eventually(within: 10) {
            [primaryPort, replicaPort].allSatisfy { (try? connection(port: $0).command(["PING"])) != nil }
        }
        guard up else { throw failure("the cluster nodes did not start") }
        let primary = try connection(port: primaryPort)
        _ = try primary.command(["CLUSTER", "ADDSLOTSRANGE", "0", String(ClusterSlot.count - 1)])
        guard let primaryID = try primary.command(["CLUSTER", "MYID"]).string else {
            throw RedisServerError(message: "CLUSTER MYID gave no node ID")
        }
        let replica = try connection(port: replicaPort)
        _ = try replica.command(["CLUSTER", "MEET", "127.0.0.1", String(primaryPort), String(primaryBus)])
        if replicate {
            // The replica must have heard of the primary (gossip) before it can follow it.
            let following = eventually(within: 20) {
                (try? replica.command(["CLUSTER", "REPLICATE", primaryID])) != nil
            }
            guard following else { throw failure("the second node did not become a replica") }
        }
        let formed = eventually(within: 30) {
            guard !replicate else { return inSync(primary) }
            let views = [primary, replica].compactMap { try? $0.command(["CLUSTER", "NODES"]).string }
            guard views.count == 2, let state = try? primary.command(["CLUSTER", "INFO"]).string else { return false }
            return views.allSatisfy { $0.split(separator: "\n").count == 2 && !$0.contains("handshake") }
                && state.contains("cluster_state:ok")
        }
        guard formed else { throw failure("the cluster did not form") }
    }

    private func inSync(_ primary: RedisConnection) -> Bool {
        guard let info = try? primary.command(["INFO", "replication"]).string,
            let state = try? primary.command(["CLUSTER", "INFO"]).string
        else { return false }
        return info.contains("state=online") && state.contains("cluster_state:ok")
    }

    /// An error with the end of both nodes' logs.
    private func failure(_ what: String) -> RedisServerError {
        let logs = [primaryPort, replicaPort].map { port in
            let log = (try? String(contentsOfFile: "\(directory)/redis-\(port).log", encoding: .utf8)) ?? ""
            return "node \(port):\n" + log.split(separator: "\n").suffix(8).joined(separator: "\n")
        }
        return RedisServerError(message: "\(what) in \(directory)\n" + logs.joined(separator: "\n"))
    }
}

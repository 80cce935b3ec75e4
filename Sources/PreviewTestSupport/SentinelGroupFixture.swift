import Foundation
import PreviewProcess
public import PreviewRedis

#if canImport(Glibc)
    import Glibc
#endif

/// A Redis primary, its replicas and three sentinels (quorum 2) on loopback TCP ports, for failover tests: each a
/// child of the test (`setpriv --pdeathsig KILL`) in a fresh directory under /tmp, all stopped with SIGKILL and
/// the directory removed by `stop()` or deinit. Persistence is off; replicas sync diskless with no delay.
public final class SentinelGroupFixture {
    public let directory: String
    public let master = "mymaster"
    public let sentinelPorts: [Int]
    /// The data nodes' ports; the first is the primary the sentinels start monitoring.
    public let dataPorts: [Int]
    private var children: [Int: ChildProcess] = [:]
    /// Each data node's command line, so a killed one can be started again.
    private var dataNodeArguments: [Int: [String]] = [:]

    /// The password of every node, sentinels included, when one was given.
    public let password: String?

    /// Starts the data nodes, then the sentinels (`down-after-milliseconds` and `failover-timeout` as given), and
    /// waits until every sentinel knows the other two and every replica (so a failover can be agreed on). With a
    /// `password`, data nodes and sentinels all require it (`requirepass`, `masterauth`, `sentinel auth-pass`).
    public init(
        replicas: Int = 1, downAfterMilliseconds: Int = 1000, failoverTimeoutMilliseconds: Int = 3000,
        password: String? = nil
    ) throws {
        self.password = password
        _ = signal(SIGPIPE, SIG_IGN)  // ignored result: the previous handler; hiredis writes with write()
        directory = try TestPaths.makeTemporaryDirectory(prefix: "sp-sentinel")
        let ports = try Self.freeLoopbackPorts(count: 4 + replicas)
        dataPorts = Array(ports.prefix(1 + replicas))
        sentinelPorts = Array(ports.suffix(3))
        do {
            let server = try Self.program("redis-server")
            for (index, port) in dataPorts.enumerated() {
                var arguments = [
                    server, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", directory, "--dbfilename", "dump-\(port).rdb", "--daemonize", "no",
                    "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                    "--logfile", "\(directory)/redis-\(port).log",
                ]
                if index > 0 { arguments += ["--replicaof", "127.0.0.1", String(dataPorts[0])] }
                if let password { arguments += ["--requirepass", password, "--masterauth", password] }
                dataNodeArguments[port] = arguments
                try spawn(arguments, port: port)
            }
            let sentinel = ChildProcess.executable(named: "redis-sentinel")
            for port in sentinelPorts {
                let config = "\(directory)/sentinel-\(port).conf"
                let text = """
                    port \(port)
                    bind 127.0.0.1
                    daemonize no
                    dir \(directory)
                    logfile \(directory)/sentinel-\(port).log
                    sentinel monitor \(master) 127.0.0.1 \(dataPorts[0]) 2
                    sentinel down-after-milliseconds \(master) \(downAfterMilliseconds)
                    sentinel failover-timeout \(master) \(failoverTimeoutMilliseconds)
                    sentinel parallel-syncs \(master) 1
                    \(password.map { "sentinel auth-pass \(master) \($0)\nrequirepass \($0)" } ?? "")

                    """
                try Data(text.utf8).write(to: URL(fileURLWithPath: config))
                // Debian's redis-sentinel is redis-server started under another name; --sentinel does the same.
                try spawn(sentinel.map { [$0, config] } ?? [server, config, "--sentinel"], port: port)
            }
            try waitUntilAgreed(replicas: replicas)
        } catch {
            stop()
            throw error
        }
    }

    deinit { stop() }

    /// `redis-sentinel://[password@]127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3#mymaster`.
    public var url: String {
        "redis-sentinel://" + (password.map { "\($0)@" } ?? "")
            + sentinelPorts.map { "127.0.0.1:\($0)" }.joined(separator: ",") + "#\(master)"
    }

    /// A connection to the data node or sentinel on `port` (with the password, if any).
    public func connection(port: Int) throws -> RedisConnection {
        try RedisConnection(
            endpoint: RedisEndpoint(address: .tcp(host: "127.0.0.1", port: port), password: password),
            connectTimeout: 1, commandTimeout: 2)
    }

    /// The primary's port as the first sentinel that answers names it.
    public func primaryPort() -> Int? {
        for port in sentinelPorts {
            guard let reply = try? connection(port: port).command(["SENTINEL", "get-master-addr-by-name", master]),
                let parts = reply.array, parts.count == 2, let text = parts[1].string, let value = Int(text)
            else { continue }
            return value
        }
        return nil
    }

    /// SIGKILLs the data node or sentinel on `port` and reaps it.
    public func kill(port: Int) {
        guard let child = children.removeValue(forKey: port) else { return }
        child.send(SIGKILL)
        _ = child.waitForExit(timeout: 5)
    }

    /// Starts the killed data node on `port` again, empty, as a replica of `primary`: what a supervisor restarting a
    /// lost node does. The sentinels then count it among the primary's replicas.
    public func restartAsReplica(port: Int, of primary: Int) throws {
        guard children[port] == nil, var arguments = dataNodeArguments[port] else {
            throw RedisServerError(message: "no killed data node on port \(port) to restart")
        }
        if let index = arguments.firstIndex(of: "--replicaof") { arguments.removeSubrange(index...(index + 2)) }
        arguments += ["--replicaof", "127.0.0.1", String(primary)]
        try spawn(arguments, port: port)
    }

    /// SIGKILLs everything and removes the directory. Idempotent.
    public func stop() {
        for port in Array(children.keys) { kill(port: port) }
        try? FileManager.default.removeItem(atPath: directory)  // best effort: the test's result matters more
    }

    private func spawn(_ arguments: [String], port: Int) throws {
        let log = "\(directory)/stdout-\(port).log"
        do {
            children[port] = try ChildProcess.spawn(arguments: arguments, stdoutPath: log, diesWithParent: true)
        } catch {
            throw RedisServerError(message: "cannot start \(arguments.joined(separator: " ")): \(error)")
        }
    }

    private func waitUntilAgreed(replicas: Int) throws {
        let agreed = eventually(within: 30) {
            sentinelPorts.allSatisfy { port in
                guard let connection = try? connection(port: port),
                    let others = try? connection.command(["SENTINEL", "sentinels", master]).array,
                    let known = try? connection.command(["SENTINEL", "replicas", master]).array
                else { return false }
                let linked = known.filter { Self.field("master-link-status", in: $0) == "ok" }
                return others.count == 2 && linked.count == replicas
            }
        }
        guard agreed else {
            throw RedisServerError(message: "the sentinels in \(directory) did not see each other and the replicas")
        }
    }

    /// A field of a `SENTINEL replicas` entry (a flat name/value array).
    private static func field(_ name: String, in entry: RedisValue) -> String? {
        let items = entry.array ?? []
        var index = 0
        while index + 1 < items.count {
            if items[index].string == name { return items[index + 1].string }
            index += 2
        }
        return nil
    }

    private static func program(_ name: String) throws -> String {
        guard let path = ChildProcess.executable(named: name) else {
            throw RedisServerError(message: "\(name) not found: install redis-server and redis-sentinel")
        }
        return path
    }

    /// Ports the kernel hands out for 127.0.0.1, all bound at once so they differ, then released.
    public static func freeLoopbackPorts(count: Int) throws -> [Int] {
        var sockets: [Int32] = []
        defer { for fd in sockets { _ = close(fd) } }  // ignored results: closing a bound, unused socket
        var ports: [Int] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { throw RedisServerError(message: "socket: \(String(cString: strerror(errno)))") }
            sockets.append(fd)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
            guard bound == 0, named == 0 else {
                throw RedisServerError(message: "bind: \(String(cString: strerror(errno)))")
            }
            ports.append(Int(UInt16(bigEndian: address.sin_port)))
        }
        return ports
    }
}

import Synchronization

/// Finds the primary of a Sentinel-monitored group, as redis-py's `SentinelConnectionPool` and Lettuce do: ask
/// the sentinels in order `SENTINEL get-master-addr-by-name MASTER`, connect to the address one names and check
/// with `ROLE` that it really is a primary (a sentinel can lag behind a failover), and move the sentinel that
/// answered to the front so the next look-up asks it first.
///
/// The answer is kept until `forget(_:)` is told that connections to it broke; the next `primary()` asks again.
/// Look-ups are serialised: one thread asks while the others wait for its answer. A failed look-up is remembered
/// for `failureHold` so that a burst of requests during a failover does not query every sentinel per request.
///
/// Sentinels are asked without AUTH; one that answers `NOAUTH` is asked again with the data nodes' credentials
/// (deployments that protect sentinels use the same password, and Sentinel has no SELECT).
final class SentinelResolver: Sendable {
    let nodes: Mutex<[RedisEndpoint.SentinelNode]>
    let master: String
    /// The data nodes' database and credentials; the address is filled in per look-up.
    private let template: RedisEndpoint
    private let connectTimeout: Double
    private let commandTimeout: Double
    private let state = Mutex(State())
    /// Held while a look-up runs, so only one thread asks the sentinels at a time.
    private let lookup = Mutex(())
    private let failureHold: Duration

    private struct State {
        var primary: RedisEndpoint?
        var failure: (error: any Error, at: ContinuousClock.Instant)?
    }

    init(
        nodes: [RedisEndpoint.SentinelNode], master: String, template: RedisEndpoint, connectTimeout: Double,
        commandTimeout: Double, failureHold: Duration = .milliseconds(200)
    ) {
        self.nodes = Mutex(nodes)
        self.master = master
        self.template = template
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.failureHold = failureHold
    }

    /// The current primary's endpoint (TCP, with the data nodes' database and credentials).
    /// Throws `.connection` when no sentinel named a reachable primary.
    func primary() throws -> RedisEndpoint {
        if let known = try cached() { return known }
        return try lookup.withLock { _ in
            if let known = try cached() { return known }
            do {
                let found = try resolve()
                state.withLock { $0 = State(primary: found, failure: nil) }
                return found
            } catch {
                state.withLock { $0.failure = (error, ContinuousClock.now) }
                throw error
            }
        }
    }

    /// The primary known from the last look-up, if any (for tests and logs).
    var knownPrimary: RedisEndpoint? { state.withLock { $0.primary } }

    /// Drops the known primary if it is `endpoint`, so the next `primary()` asks the sentinels again.
    func forget(_ endpoint: RedisEndpoint) {
        state.withLock { state in
            if state.primary == endpoint { state.primary = nil }
        }
    }

    private func cached() throws -> RedisEndpoint? {
        try state.withLock { state in
            if let primary = state.primary { return primary }
            if let failure = state.failure, ContinuousClock.now - failure.at < failureHold { throw failure.error }
            return nil
        }
    }

    private func resolve() throws(RedisError) -> RedisEndpoint {
        var reasons: [String] = []
        for node in nodes.withLock({ $0 }) {
            do {
                guard let address = try ask(node) else {
                    reasons.append("\(node): no primary named '\(master)'")
                    continue
                }
                var candidate = template
                candidate.address = .tcp(host: address.host, port: address.port)
                let role = try RedisConnection(
                    endpoint: candidate, connectTimeout: connectTimeout, commandTimeout: commandTimeout
                ).command(["ROLE"])
                guard role.array?.first?.string == "master" else {
                    reasons.append("\(node) named \(address), which is not a primary (ROLE)")
                    continue
                }
                moveToFront(node)
                return candidate
            } catch {
                reasons.append("\(node): \(error)")
            }
        }
        throw RedisError(
            kind: .connection,
            message: "no sentinel named a reachable primary for '\(master)': " + reasons.joined(separator: "; "))
    }

    /// `SENTINEL get-master-addr-by-name`: the primary's address, or nil when the sentinel knows no such master.
    private func ask(_ node: RedisEndpoint.SentinelNode) throws -> RedisEndpoint.SentinelNode? {
        let query = ["SENTINEL", "get-master-addr-by-name", master]
        var endpoint = RedisEndpoint(address: .tcp(host: node.host, port: node.port))
        var reply: RedisValue
        do {
            reply = try RedisConnection(
                endpoint: endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout
            ).command(query)
        } catch let error as RedisError where error.kind == .server && error.message.hasPrefix("NOAUTH") {
            guard template.password != nil else { throw error }
            endpoint.username = template.username
            endpoint.password = template.password
            reply = try RedisConnection(
                endpoint: endpoint, connectTimeout: connectTimeout, commandTimeout: commandTimeout
            ).command(query)
        }
        if reply.isNull { return nil }
        guard let parts = reply.array, parts.count == 2, let host = parts[0].string, let portText = parts[1].string,
            let port = Int(portText)
        else {
            throw RedisError(kind: .protocolError, message: "\(node) answered get-master-addr-by-name with \(reply)")
        }
        return RedisEndpoint.SentinelNode(host: host, port: port)
    }

    private func moveToFront(_ node: RedisEndpoint.SentinelNode) {
        nodes.withLock { nodes in
            guard let index = nodes.firstIndex(of: node), index > 0 else { return }
            nodes.insert(nodes.remove(at: index), at: 0)
        }
    }
}

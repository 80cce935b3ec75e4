/// How many replicas must have a write before the API acknowledges it (Redis `WAIT numreplicas timeout`).
///
/// Redis replicates asynchronously: a write the primary answered can be lost when the primary dies before a
/// replica has it, and Sentinel then promotes that replica. With `replicas` > 0 each write the API answers for
/// (upload records, commits, ends of streams, likes) is followed on the same connection by `WAIT`, which returns
/// once that many replicas have every write of the connection so far (on a cluster: of each node the request
/// wrote to); fewer within `timeoutMilliseconds` fails the request as unavailable (503). The write itself stays on the primary: a client's retry is answered as
/// the repeat it is (likes are idempotent, a repeated commit answers with the preview it published).
public struct ReplicaWait: Sendable, Equatable {
    /// 0 turns the wait off (the default: a single Redis has no replicas).
    public var replicas: Int
    public var timeoutMilliseconds: Int

    public init(replicas: Int = 0, timeoutMilliseconds: Int = 1000) {
        self.replicas = replicas
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Waits until `replicas` replicas have the writes made through `connection` (on a cluster, each
    /// node written to is asked on its own connection: `RedisCommands`); nothing when off.
    /// Throws `.unavailable` when fewer confirm in time.
    func confirm(on connection: any RedisCommands) throws {
        guard replicas > 0 else { return }
        let reply = try connection.command(["WAIT", String(replicas), String(max(1, timeoutMilliseconds))])
        guard let confirmed = reply.int else {
            throw RedisError(kind: .protocolError, message: "WAIT answered \(reply), not a replica count")
        }
        if confirmed < replicas {
            throw RedisError(
                kind: .unavailable,
                message:
                    "WAIT: \(confirmed) of \(replicas) replicas confirmed the write within \(timeoutMilliseconds) ms")
        }
    }
}

import PreviewRedis

/// Reads a Redis a test does not own the client of (e.g. the embedded Redis of a `serve`, at
/// `<data-dir>/redis/redis.sock`) with plain commands, and answers in plain Swift values: for
/// checking what the service wrote. One connection, opened on first use and re-dialled after a
/// failure.
public final class RedisProbe {
    public let socketPath: String
    private var connection: RedisConnection?

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// The probe of the embedded Redis of a `serve` on `dataDirectory`.
    public convenience init(serveDataDirectory dataDirectory: String) {
        self.init(socketPath: dataDirectory + "/redis/redis.sock")
    }

    /// Runs `command`; an error reply throws.
    private func run(_ command: [String]) throws -> RedisValue {
        let connection =
            try self.connection ?? RedisConnection(endpoint: RedisEndpoint(address: .unix(path: socketPath)))
        self.connection = connection
        do {
            let reply = try connection.command(command)
            if case .error(let message) = reply {
                throw ServiceProcessError("redis \(command.first ?? ""): \(message)")
            }
            return reply
        } catch {
            self.connection = nil
            throw error
        }
    }

    /// The bulk strings of an array reply (e.g. `ZRANGE key 0 -1`), or of a single one.
    public func strings(_ command: [String]) throws -> [String] {
        let reply = try run(command)
        if let items = reply.array { return items.compactMap(\.string) }
        return reply.string.map { [$0] } ?? []
    }

    /// A bulk string reply (e.g. `GET`, `HGET`); nil for a null reply.
    public func string(_ command: [String]) throws -> String? { try run(command).string }

    /// Runs a command whose answer does not matter (e.g. `DEL`); an error reply throws.
    public func perform(_ command: [String]) throws { _ = try run(command) }

    /// An integer reply (e.g. `ZCARD`, `EXISTS`).
    public func integer(_ command: [String]) throws -> Int64 {
        let reply = try run(command)
        guard let value = reply.int else { throw ServiceProcessError("redis \(command): not an integer: \(reply)") }
        return value
    }
}

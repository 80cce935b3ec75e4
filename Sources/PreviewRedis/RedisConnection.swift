// The only file that calls hiredis (0.14.1, RESP2, blocking API). Raw pointers never leave it.
import CHiredis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One blocking hiredis connection with connect and command timeouts; sends AUTH and SELECT on every (re)connect.
///
/// Not thread-safe: one thread at a time, normally through `RedisPool`. After a connection, timeout or protocol
/// error, or an error reply saying the node cannot serve now (`RedisError.breaksConnection(reply:)`, such as `READONLY`
/// from a demoted primary), the hiredis context is freed and the connection is *broken*; the next call dials afresh
/// (connect, timeouts, AUTH, SELECT) rather than `redisReconnect`, which would not re-apply timeouts. Failed
/// commands are never retried.
///
/// hiredis writes with `write()`: the process must ignore SIGPIPE (`signal(SIGPIPE, SIG_IGN)` in `main`),
/// or a write to a server that went away kills it.
public final class RedisConnection {
    public let endpoint: RedisEndpoint
    private let connectTimeout: Double
    private let commandTimeout: Double
    /// nil while broken.
    private var context: UnsafeMutablePointer<redisContext>?
    /// Why the connection last broke; nil until it first does.
    public private(set) var lastBreak: RedisError.Kind?
    private var scriptSHAs: [RedisScript: String] = [:]

    /// Connects at once (throws `.connection`/`.timeout`, or `.server` when AUTH or SELECT is refused).
    /// Timeouts are in seconds; values below 1 ms are raised to 1 ms. A `redis-sentinel://` endpoint names no
    /// server to dial (`.invalidURL`): `RedisPool` looks its primary up and dials that.
    public init(endpoint: RedisEndpoint, connectTimeout: Double = 1, commandTimeout: Double = 2) throws {
        self.endpoint = endpoint
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.context = try dial()
    }

    deinit {
        if let context { redisFree(context) }
    }

    /// True after a connection-level failure, until the next call re-dials.
    public var isBroken: Bool { context == nil }

    /// Sends one command (binary safe) and waits for its reply.
    /// An error reply is thrown as `RedisError.reply` with the server's text (`.server`, or `.unavailable`,
    /// which also breaks the connection, `TRYAGAIN` excepted).
    public func command(_ args: [String]) throws -> RedisValue {
        try Self.checkNotEmpty(args)
        return try command(RESPRequest([args]))
    }

    /// `command(_:)` for arguments that are arbitrary bytes.
    public func command(bytes args: [[UInt8]]) throws -> RedisValue {
        try Self.checkNotEmpty(args)
        return try command(RESPRequest(bytes: [args]))
    }

    private func command(_ request: RESPRequest) throws -> RedisValue {
        let c = try connectedContext()
        let reply: RedisValue
        do {
            reply = try Self.roundTrip(c, request, endpoint: endpoint)
        } catch {
            markBroken((error as? RedisError)?.kind ?? .connection)
            throw error
        }
        if case .error(let message) = reply {
            let error = RedisError.reply(message)
            if RedisError.breaksConnection(reply: message) { markBroken(.unavailable) }
            throw error
        }
        return reply
    }

    /// Waits for the next message pushed on this connection (after SUBSCRIBE), up to the
    /// command timeout; a timeout breaks the connection, like any other.
    public func receive() throws -> RedisValue {
        let c = try connectedContext()
        do {
            return try Self.readReply(c, endpoint: endpoint)
        } catch {
            markBroken((error as? RedisError)?.kind ?? .connection)
            throw error
        }
    }

    /// Waits up to `seconds` for the next message pushed on this connection; nil when none came,
    /// and the connection stays as it was (a quiet subscription is not a broken one). A message
    /// already read into hiredis' buffer is returned without waiting.
    public func receive(within seconds: Double) throws -> RedisValue? {
        let c = try connectedContext()
        do {
            if let buffered = try Self.bufferedReply(c, endpoint: endpoint) { return buffered }
            var descriptor = pollfd(fd: c.pointee.fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: Int((seconds * 1000).rounded(.up))))
            // EINTR counts as "nothing yet": the caller waits again.
            guard ready > 0 else { return nil }
            return try Self.readReply(c, endpoint: endpoint)
        } catch {
            markBroken((error as? RedisError)?.kind ?? .connection)
            throw error
        }
    }

    /// Writes one command without waiting for its reply, which `receive` then returns in its
    /// turn (a `PING` on a subscribed connection comes back as `["pong", ""]`).
    public func send(_ args: [String]) throws {
        try Self.checkNotEmpty(args)
        let c = try connectedContext()
        do {
            try Self.append(RESPRequest([args]), to: c, endpoint: endpoint)
            var done: Int32 = 0
            while done == 0 {
                guard redisBufferWrite(c, &done) == REDIS_OK else {
                    throw Self.error(from: c, savedErrno: errno, endpoint: endpoint)
                }
            }
        } catch {
            markBroken((error as? RedisError)?.kind ?? .connection)
            throw error
        }
    }

    /// Sends all commands in one write, then reads one reply per command, in order.
    /// Error replies come back inline as `.error`; only connection-level failures throw. A reply saying the node
    /// cannot serve now (`RedisError.breaksConnection(reply:)`) breaks the connection once all replies are read.
    public func pipeline(_ commands: [[String]]) throws -> [RedisValue] {
        for command in commands { try Self.checkNotEmpty(command) }
        return try pipeline(RESPRequest(commands))
    }

    /// `pipeline(_:)` for arguments that are arbitrary bytes.
    public func pipeline(bytes commands: [[[UInt8]]]) throws -> [RedisValue] {
        for command in commands { try Self.checkNotEmpty(command) }
        return try pipeline(RESPRequest(bytes: commands))
    }

    private func pipeline(_ request: RESPRequest) throws -> [RedisValue] {
        guard request.commandCount > 0 else { return [] }
        let c = try connectedContext()
        do {
            try Self.append(request, to: c, endpoint: endpoint)
            var replies: [RedisValue] = []
            replies.reserveCapacity(request.commandCount)
            for _ in 0..<request.commandCount { replies.append(try Self.readReply(c, endpoint: endpoint)) }
            if replies.contains(where: \.breaksConnection) { markBroken(.unavailable) }
            return replies
        } catch {
            markBroken((error as? RedisError)?.kind ?? .connection)
            throw error
        }
    }

    /// Runs `script` with EVALSHA; on `NOSCRIPT` (server restarted, SCRIPT FLUSH) loads it with SCRIPT LOAD and retries once.
    public func eval(_ script: RedisScript, keys: [String], args: [String]) throws -> RedisValue {
        let sha = try scriptSHAs[script] ?? load(script)
        do {
            return try command(["EVALSHA", sha, String(keys.count)] + keys + args)
        } catch let error as RedisError where error.kind == .server && error.message.hasPrefix("NOSCRIPT") {
            let reloaded = try load(script)
            return try command(["EVALSHA", reloaded, String(keys.count)] + keys + args)
        }
    }

    /// Sends `commands`, then runs `script`, all in one round trip; the commands are applied
    /// before the script. Throws the first error reply of the commands or the script's.
    public func eval(_ script: RedisScript, keys: [String], args: [String], after commands: [[String]]) throws
        -> RedisValue
    {
        let call = { (sha: String) in ["EVALSHA", sha, String(keys.count)] + keys + args }
        var replies = try pipeline(commands + [call(try scriptSHAs[script] ?? load(script))])
        for case .error(let message) in replies.dropLast() { throw RedisError.reply(message) }
        if case .error(let message) = replies[replies.count - 1], message.hasPrefix("NOSCRIPT") {
            replies = [try command(call(try load(script)))]
        }
        let reply = replies[replies.count - 1]
        if case .error(let message) = reply { throw RedisError.reply(message) }
        return reply
    }

    /// Runs `script` once per call, all in one pipeline of EVALSHA. Calls answered `NOSCRIPT`
    /// (the server lost its scripts) did not run: the script is loaded and those calls are sent
    /// again. Other error replies come back inline, as in `pipeline(_:)`.
    public func evalPipeline(_ script: RedisScript, calls: [(keys: [String], args: [String])]) throws -> [RedisValue] {
        guard !calls.isEmpty else { return [] }
        func send(_ sha: String, _ indices: [Int]) throws -> [RedisValue] {
            try pipeline(
                indices.map { ["EVALSHA", sha, String(calls[$0].keys.count)] + calls[$0].keys + calls[$0].args })
        }
        var replies = try send(try scriptSHAs[script] ?? load(script), Array(calls.indices))
        let lost = replies.indices.filter { index in
            if case .error(let message) = replies[index] { return message.hasPrefix("NOSCRIPT") }
            return false
        }
        guard !lost.isEmpty else { return replies }
        for (index, reply) in zip(lost, try send(try load(script), lost)) { replies[index] = reply }
        return replies
    }

    private func load(_ script: RedisScript) throws -> String {
        guard let sha = try command(["SCRIPT", "LOAD", script.source]).string else {
            throw RedisError(
                kind: .protocolError, message: "SCRIPT LOAD of '\(script.name)' did not answer with a SHA1")
        }
        scriptSHAs[script] = sha
        return sha
    }

    // MARK: - Connection state

    private func connectedContext() throws -> UnsafeMutablePointer<redisContext> {
        if let context { return context }
        do {
            let fresh = try dial()
            context = fresh
            return fresh
        } catch {
            lastBreak = (error as? RedisError)?.kind ?? .connection
            throw error
        }
    }

    private func markBroken(_ reason: RedisError.Kind) {
        if let context { redisFree(context) }
        context = nil
        lastBreak = reason
    }

    /// Connects, sets the command timeout, then AUTH and SELECT. Frees the context on any failure.
    private func dial() throws -> UnsafeMutablePointer<redisContext> {
        let connectTV = Self.makeTimeval(seconds: connectTimeout)
        let dialled: UnsafeMutablePointer<redisContext>?
        switch endpoint.address {
        case .tcp(let host, let port): dialled = redisConnectWithTimeout(host, Int32(clamping: port), connectTV)
        case .unix(let path): dialled = redisConnectUnixWithTimeout(path, connectTV)
        case .sentinel:
            throw RedisError(
                kind: .invalidURL, message: "\(endpoint) names sentinels, not a server: connect through RedisPool")
        }
        let savedErrno = errno
        guard let c = dialled else {
            throw RedisError(kind: .connection, message: "could not allocate a hiredis context for \(endpoint)")
        }
        do {
            guard c.pointee.err == 0 else {
                var error = Self.error(from: c, savedErrno: savedErrno, endpoint: endpoint)
                error.message = "cannot connect: " + error.message
                throw error
            }
            guard redisSetTimeout(c, Self.makeTimeval(seconds: commandTimeout)) == REDIS_OK else {
                throw RedisError(
                    kind: .connection, message: "cannot set the command timeout on \(endpoint): \(Self.errorText(c))")
            }
            if let password = endpoint.password {
                let args = ["AUTH"] + (endpoint.username.map { [$0] } ?? []) + [password]  // AUTH [username] password
                if case .error(let message) = try Self.roundTrip(c, RESPRequest([args]), endpoint: endpoint) {
                    throw RedisError(kind: .server, message: "AUTH refused by \(endpoint): \(message)")
                }
            }
            if endpoint.database != 0 {
                let args = ["SELECT", String(endpoint.database)]
                if case .error(let message) = try Self.roundTrip(c, RESPRequest([args]), endpoint: endpoint) {
                    throw RedisError(
                        kind: .server, message: "SELECT \(endpoint.database) refused by \(endpoint): \(message)")
                }
            }
        } catch {
            redisFree(c)
            throw error
        }
        return c
    }

    // MARK: - hiredis calls

    /// One command, one reply; error replies are returned as `.error`, I/O failures thrown.
    private static func roundTrip(
        _ c: UnsafeMutablePointer<redisContext>, _ request: RESPRequest, endpoint: RedisEndpoint
    ) throws -> RedisValue {
        try append(request, to: c, endpoint: endpoint)
        return try readReply(c, endpoint: endpoint)
    }

    /// Queues already-encoded commands in hiredis' output buffer; `redisGetReply` writes it out.
    private static func append(
        _ request: RESPRequest, to c: UnsafeMutablePointer<redisContext>, endpoint: RedisEndpoint
    ) throws {
        let status = request.bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisAppendFormattedCommand(c, $0.baseAddress, $0.count) }
        }
        // Only fails when out of memory; the output buffer is then in an unknown state.
        guard status == REDIS_OK else { throw error(from: c, savedErrno: errno, endpoint: endpoint) }
    }

    private static func readReply(_ c: UnsafeMutablePointer<redisContext>, endpoint: RedisEndpoint) throws -> RedisValue
    {
        var raw: UnsafeMutableRawPointer?
        let status = redisGetReply(c, &raw)
        let savedErrno = errno
        guard status == REDIS_OK, let raw else { throw error(from: c, savedErrno: savedErrno, endpoint: endpoint) }
        defer { freeReplyObject(raw) }
        return copy(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// A reply hiredis has already read off the socket, if any; never reads or waits.
    private static func bufferedReply(_ c: UnsafeMutablePointer<redisContext>, endpoint: RedisEndpoint) throws
        -> RedisValue?
    {
        var raw: UnsafeMutableRawPointer?
        guard redisGetReplyFromReader(c, &raw) == REDIS_OK else {
            throw error(from: c, savedErrno: errno, endpoint: endpoint)
        }
        guard let raw else { return nil }
        defer { freeReplyObject(raw) }
        return copy(raw.assumingMemoryBound(to: redisReply.self))
    }

    /// Copies a reply tree into Swift values; the caller frees the C tree right after.
    private static func copy(_ reply: UnsafePointer<redisReply>) -> RedisValue {
        let r = reply.pointee
        switch r.type {
        case REDIS_REPLY_STRING: return .bulk(bytes(r.str, r.len))
        case REDIS_REPLY_STATUS: return .status(String(decoding: bytes(r.str, r.len), as: UTF8.self))
        case REDIS_REPLY_ERROR: return .error(String(decoding: bytes(r.str, r.len), as: UTF8.self))
        case REDIS_REPLY_INTEGER: return .integer(Int64(r.integer))
        case REDIS_REPLY_NIL: return .null
        case REDIS_REPLY_ARRAY:
            guard let elements = r.element else { return .array([]) }  // hiredis leaves it NULL for "*0"
            return .array((0..<r.elements).map { index in elements[index].map { copy($0) } ?? .null })
        default:
            // hiredis 0.14 produces only the six types above.
            return .error("ERR hiredis returned unknown reply type \(r.type)")
        }
    }

    private static func bytes(_ pointer: UnsafeMutablePointer<CChar>?, _ count: Int) -> [UInt8] {
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    private static func checkNotEmpty(_ args: [some Any]) throws {
        guard !args.isEmpty else { throw RedisError(kind: .server, message: "ERR empty command") }
    }

    /// Maps a failed context to an error kind. hiredis reports a socket timeout as REDIS_ERR_IO with EAGAIN
    /// (SO_RCVTIMEO/SO_SNDTIMEO) or ETIMEDOUT (connect poll).
    private static func error(
        from c: UnsafeMutablePointer<redisContext>, savedErrno: Int32, endpoint: RedisEndpoint
    ) -> RedisError {
        let text = errorText(c)
        switch c.pointee.err {
        case REDIS_ERR_PROTOCOL:
            return RedisError(kind: .protocolError, message: "\(text) (\(endpoint))")
        case REDIS_ERR_IO where savedErrno == EAGAIN || savedErrno == EWOULDBLOCK || savedErrno == ETIMEDOUT:
            return RedisError(kind: .timeout, message: "\(text) (\(endpoint))")
        case 0:
            return RedisError(kind: .connection, message: "no reply and no hiredis error (\(endpoint))")
        default:
            return RedisError(kind: .connection, message: "\(text) (\(endpoint))")
        }
    }

    /// `errstr` imports as a 128-byte tuple; read it up to its NUL.
    private static func errorText(_ c: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: c.pointee.errstr) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
    }

    private static func makeTimeval(seconds: Double) -> timeval {
        let clamped = max(seconds, 0.001)
        let whole = clamped.rounded(.down)
        return timeval(tv_sec: Int(whole), tv_usec: Int((clamped - whole) * 1_000_000))
    }
}

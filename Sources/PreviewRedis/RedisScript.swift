/// A Lua script run with EVALSHA. Its SHA1 is learnt from `SCRIPT LOAD` (so Core needs no SHA1)
/// and cached per connection; a `NOSCRIPT` reply (server restarted, `SCRIPT FLUSH`) reloads it once.
public struct RedisScript: Sendable, Hashable {
    /// Short name for logs and errors.
    public let name: String
    public let source: String

    public init(name: String, source: String) {
        self.name = name
        self.source = source
    }
}

import PreviewCore
import Synchronization

/// Tokens that passed `JWTVerifier.authenticate` lately, so the next request with the same
/// token skips the base64, JSON and HMAC work and only has its times checked (a viewer's app
/// sends one token for many feed polls). Only tokens that verified are kept, keyed by their
/// whole text, so nothing unsigned can enter; the key set is fixed for the process's life.
/// Bounded: a shard that fills up is emptied.
final class AuthenticatedTokens: Sendable {
    private final class Shard: Sendable {
        let tokens = Mutex<[Key: JWTVerifier.Authenticated]>([:])
    }

    /// A token with its hash taken once, before any lock: a shard's lock then covers only a
    /// table probe and one comparison of the text.
    private struct Key: Hashable {
        let token: String
        let hash: Int

        init(_ token: String) {
            self.token = token
            hash = token.hashValue
        }

        static func == (a: Key, b: Key) -> Bool { a.hash == b.hash && a.token == b.token }
        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private let shards: [Shard]
    private let perShard: Int

    init(capacity: Int = 8192) {
        shards = (0..<8).map { _ in Shard() }
        perShard = max(1, capacity / 8)
    }

    /// `token` authenticated by `verifier`, from here when it was before.
    func authenticate(_ token: String, with verifier: JWTVerifier) -> Result<JWTVerifier.Authenticated, TokenError> {
        let key = Key(token)
        let shard = shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
        if let known = shard.tokens.withLock({ $0[key] }) { return .success(known) }
        let result = verifier.authenticate(token)
        if case .success(let authenticated) = result {
            shard.tokens.withLock { tokens in
                if tokens.count >= perShard { tokens.removeAll(keepingCapacity: true) }
                tokens[key] = authenticated
            }
        }
        return result
    }

    /// Tokens held (for tests).
    var count: Int { shards.reduce(0) { $0 + $1.tokens.withLock { $0.count } } }
}

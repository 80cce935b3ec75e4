import PreviewCore
import Synchronization

/// Tokens that passed `JWTVerifier.authenticate` lately, so the next request with the same
/// token skips the base64, JSON and HMAC work and only has its times checked (a viewer's app
/// sends one token for many feed polls). Only tokens that verified are kept, keyed by their
/// whole text, so nothing unsigned can enter; the key set is fixed for the process's life.
/// Bounded: a shard that fills up is emptied.
final class AuthenticatedTokens: Sendable {
    private final class Shard: Sendable {
        let tokens = Mutex<[String: JWTVerifier.Authenticated]>([:])
    }

    private let shards: [Shard]
    private let perShard: Int

    init(capacity: Int = 8192) {
        shards = (0..<8).map { _ in Shard() }
        perShard = max(1, capacity / 8)
    }

    /// `token` authenticated by `verifier`, from here when it was before.
    func authenticate(_ token: String, with verifier: JWTVerifier) -> Result<JWTVerifier.Authenticated, TokenError> {
        let shard = shards[Int(UInt(bitPattern: token.utf8.count &* 31 &+ Int(token.utf8.last ?? 0)) % 8)]
        if let known = shard.tokens.withLock({ $0[token] }) { return .success(known) }
        let result = verifier.authenticate(token)
        if case .success(let authenticated) = result {
            shard.tokens.withLock { tokens in
                if tokens.count >= perShard { tokens.removeAll(keepingCapacity: true) }
                tokens[token] = authenticated
            }
        }
        return result
    }

    /// Tokens held (for tests).
    var count: Int { shards.reduce(0) { $0 + $1.tokens.withLock { $0.count } } }
}

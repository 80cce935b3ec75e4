import PreviewCore
import Synchronization

/// Tokens that passed `JWTVerifier.authenticate` lately, so the next request with the same
/// token skips the base64, JSON and HMAC work and only has its times checked (a viewer's app
/// sends one token for many feed polls). Only tokens that verified are kept, keyed by their
/// whole text, so nothing unsigned can enter. Held tokens belong to one generation of the
/// identity provider's keys: a verifier of a newer generation empties a shard before its first
/// lookup there, so a token whose key was rotated out is verified again (and refused).
/// Bounded by an estimate of the bytes held (token text, subject, stream IDs, overhead), not by
/// a count, so long tokens cannot hold more memory than the budget: a shard that fills up is
/// emptied.
final class AuthenticatedTokens: Sendable {
    /// What a held token costs besides its text, subject and stream IDs: table slot, key,
    /// claims and the strings' headers.
    static let bytesPerToken = 160

    private struct Held {
        var tokens: [Key: JWTVerifier.Authenticated] = [:]
        var bytes = 0
        /// The key-set generation of the verifier that authenticated every held token.
        var generation: UInt64 = 0
    }

    private final class Shard: Sendable {
        let held = Mutex(Held())
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

    /// `budgetBytes` in all (the default, 8 MiB, holds about 16,000 tokens of 300 bytes).
    init(budgetBytes: Int = 8 << 20) {
        shards = (0..<8).map { _ in Shard() }
        perShard = max(1, budgetBytes / 8)
    }

    /// The estimated bytes of holding `token` with what it authenticated as.
    static func cost(_ token: String, _ authenticated: JWTVerifier.Authenticated) -> Int {
        bytesPerToken + token.utf8.count + authenticated.claims.subject.utf8.count
            + authenticated.claims.streamIds.count * MemoryLayout<Int64>.size
    }

    /// `token` authenticated by `verifier`, from here when it was before.
    func authenticate(_ token: String, with verifier: JWTVerifier) -> Result<JWTVerifier.Authenticated, TokenError> {
        let key = Key(token)
        let shard = shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
        let generation = verifier.publicKeys.generation
        let known = shard.held.withLock { held -> JWTVerifier.Authenticated? in
            if generation > held.generation {
                held.tokens.removeAll(keepingCapacity: true)
                held.bytes = 0
                held.generation = generation
            }
            // A verifier read before the newest keys arrived neither uses nor fills the shard.
            return generation == held.generation ? held.tokens[key] : nil
        }
        if let known { return .success(known) }
        let result = verifier.authenticate(token)
        // The high-S twin of an ES256 token is verified each time rather than held beside it.
        if case .success(let authenticated) = result, authenticated.isCanonical {
            let cost = Self.cost(token, authenticated)
            guard cost <= perShard else { return result }
            shard.held.withLock { held in
                guard held.generation == generation else { return }
                if held.bytes + cost > perShard {
                    held.tokens.removeAll(keepingCapacity: true)
                    held.bytes = 0
                }
                if held.tokens.updateValue(authenticated, forKey: key) == nil { held.bytes += cost }
            }
        }
        return result
    }

    /// Tokens held (for tests).
    var count: Int { shards.reduce(0) { $0 + $1.held.withLock { $0.tokens.count } } }

    /// The estimated bytes held (for tests).
    var heldBytes: Int { shards.reduce(0) { $0 + $1.held.withLock { $0.bytes } } }
}

import PreviewCore
import Synchronization

/// The `RateLimitLease`s this process holds, by class and caller. Sharded by the caller's hash
/// so threads answering different callers rarely meet on a lock, and each lock covers a table
/// probe only. Bounded: a shard that holds `maxPerShard` leases drops the expired ones, and
/// all of them when none had expired (a lease only saves a Redis call; losing one loses at most
/// its requests, which were counted).
final class RateLimitLeases: Sendable {
    /// The caller's hash taken once, before any lock, for the shard and the table alike.
    private struct Key: Hashable {
        let limitClass: RateLimitClass
        let caller: String
        let hash: Int

        init(_ limitClass: RateLimitClass, _ caller: String) {
            self.limitClass = limitClass
            self.caller = caller
            hash = caller.hashValue
        }

        static func == (a: Key, b: Key) -> Bool {
            a.hash == b.hash && a.limitClass == b.limitClass && a.caller == b.caller
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    }

    private final class Shard: Sendable {
        let leases = Mutex<[Key: RateLimitLease]>([:])
    }

    private let shards: [Shard] = (0..<16).map { _ in Shard() }
    let maxPerShard: Int

    init(maxPerShard: Int = 4096) {
        self.maxPerShard = maxPerShard
    }

    private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) % UInt(shards.count))]
    }

    /// One request from the caller's lease in the class, when it holds one that is not used up
    /// or expired.
    func take(_ limitClass: RateLimitClass, caller: String, nowMilliseconds: Int64) -> RateLimitDecision? {
        let key = Key(limitClass, caller)
        return shard(key).leases.withLock { leases in
            guard let lease = leases[key] else { return nil }
            guard let (decision, next) = lease.take(nowMilliseconds: nowMilliseconds) else {
                leases[key] = nil
                return nil
            }
            leases[key] = next.left > 0 ? next : nil
            return decision
        }
    }

    func keep(_ lease: RateLimitLease, _ limitClass: RateLimitClass, caller: String, nowMilliseconds: Int64) {
        let key = Key(limitClass, caller)
        shard(key).leases.withLock { leases in
            if leases.count >= maxPerShard {
                leases = leases.filter { $0.value.expiresAt > nowMilliseconds }
                if leases.count >= maxPerShard { leases.removeAll(keepingCapacity: true) }
            }
            leases[key] = lease
        }
    }
}

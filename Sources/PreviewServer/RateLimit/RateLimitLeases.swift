import PreviewCore
import Synchronization

/// What `RateLimitLeases.take` found for a request.
enum LeaseLookup: Equatable {
    /// Answered from the caller's lease.
    case served(RateLimitDecision)
    /// No lease to answer from: ask Redis for this many requests (`RateLimitLease.want`).
    case ask(Int64)
}

/// The `RateLimitLease`s this process holds, by class and caller, in 16 `Dictionary` shards,
/// each behind its own lock and chosen by the caller's hash, so threads answering different
/// callers rarely meet on a lock. At most `maxEntries` leases in all: a shard that is full when
/// a caller's lease is stored drops those that hold nothing (used up or expired), and all of
/// them when that frees less than a quarter of it. A lease only saves Redis calls: losing one
/// loses at most its requests, which were counted (the limiter refuses early by them, it never
/// serves more).
final class RateLimitLeases: Sendable {
    /// The caller's hash is taken once, for the shard and the shard's `Dictionary` alike.
    struct Key: Hashable {
        let limitClass: RateLimitClass
        let caller: String
        let hash: Int

        init(_ limitClass: RateLimitClass, _ caller: String) {
            self.limitClass = limitClass
            self.caller = caller
            hash = caller.hashValue
        }

        func hash(into hasher: inout Hasher) { hasher.combine(hash) }

        static func == (left: Key, right: Key) -> Bool {
            left.hash == right.hash && left.limitClass == right.limitClass && left.caller == right.caller
        }
    }

    private final class Shard: Sendable {
        let leases = Mutex([Key: RateLimitLease]())
    }

    /// 16 shards, chosen by the top bits of the caller's hash.
    private static let shardBits = 4
    private let shards: [Shard] = (0..<(1 << shardBits)).map { _ in Shard() }
    private let maxPerShard: Int

    init(maxEntries: Int = 65_536) {
        maxPerShard = max(1, maxEntries >> Self.shardBits)
    }

    private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) >> (UInt.bitWidth - Self.shardBits))]
    }

    /// One request of the caller in the class: answered from its lease when that holds a
    /// request and its lifetime has not ended, else how many requests to ask Redis for.
    func take(_ limitClass: RateLimitClass, caller: String, size: Int64, nowMilliseconds: Int64) -> LeaseLookup {
        let key = Key(limitClass, caller)
        return shard(key).leases.withLock { leases in
            // One lookup: the lease is read and replaced at its index.
            guard let index = leases.index(forKey: key) else {
                return .ask(RateLimitLease.want(after: nil, size: size, nowMilliseconds: nowMilliseconds))
            }
            let last = leases.values[index]
            guard let (decision, next) = last.take(nowMilliseconds: nowMilliseconds) else {
                return .ask(RateLimitLease.want(after: last, size: size, nowMilliseconds: nowMilliseconds))
            }
            leases.values[index] = next
            return .served(decision)
        }
    }

    /// Stores a lease Redis just gave, with what the caller's lease here still holds added
    /// (`RateLimitLease.merged`).
    func keep(_ lease: RateLimitLease, _ limitClass: RateLimitClass, caller: String, nowMilliseconds: Int64) {
        let key = Key(limitClass, caller)
        shard(key).leases.withLock { leases in
            let existing = leases[key]
            if existing == nil, leases.count >= maxPerShard {
                leases = leases.filter { $0.value.left > 0 && nowMilliseconds < $0.value.expiresAt }
                if leases.count > maxPerShard * 3 / 4 { leases.removeAll() }
            }
            leases[key] = RateLimitLease.merged(lease, into: existing, nowMilliseconds: nowMilliseconds)
        }
    }

    /// The caller's lease here, if any.
    func lease(_ limitClass: RateLimitClass, caller: String) -> RateLimitLease? {
        let key = Key(limitClass, caller)
        return shard(key).leases.withLock { $0[key] }
    }

    /// How many leases are held, in all shards.
    var count: Int { shards.reduce(0) { $0 + $1.leases.withLock { $0.count } } }
}

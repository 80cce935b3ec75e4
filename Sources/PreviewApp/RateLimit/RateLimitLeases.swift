import PreviewCore
import Synchronization

/// What `RateLimitLeases.take` found for a request.
enum LeaseLookup: Equatable {
    /// Answered from the caller's lease, or on credit while its next one is on its way;
    /// `refill`: the requests to ask Redis for ahead of need (`RateLimitLease.refill`, or the
    /// ask of `RateLimitLease.onCredit`), when one is due.
    case leased(RateLimitDecision, refill: Int64?)
    /// No lease to answer from: ask Redis for this many requests.
    case ask(Int64)
}

/// The `RateLimitLease`s this process holds, by class and caller, used up ones included (they
/// size the next). Sharded by the caller's hash so threads answering different callers rarely
/// meet on a lock, and each lock covers a table probe only. Bounded: a shard that holds
/// `maxPerShard` leases drops the expired ones, and all of them when none had expired (a lease
/// only saves Redis calls; losing one loses at most its requests, which were counted).
final class RateLimitLeases: Sendable {
    private typealias Key = LeaseTable.Key

    private final class Shard: Sendable {
        let leases = Mutex(LeaseTable())
    }

    /// 16 shards, chosen by the top bits of the caller's hash (a `LeaseTable` uses the low ones).
    private static let shardBits = 4
    private let shards: [Shard] = (0..<(1 << shardBits)).map { _ in Shard() }
    let maxPerShard: Int

    init(maxPerShard: Int = 4096) {
        self.maxPerShard = maxPerShard
    }

    private func shard(_ key: Key) -> Shard {
        shards[Int(UInt(bitPattern: key.hash) >> (UInt.bitWidth - Self.shardBits))]
    }

    /// What one request of the caller in the class gets here: an answer from its lease, when it
    /// holds one that is not used up or expired, or on credit (`RateLimitLease.onCredit`), else
    /// how many requests to ask Redis for (`RateLimitLease.want`, from the caller's last lease).
    func take(_ limitClass: RateLimitClass, caller: String, cap: Int64, nowMilliseconds: Int64) -> LeaseLookup {
        let key = Key(limitClass, caller)
        return shard(key).leases.withLock { leases in
            // One probe: the lease is read and replaced in its slot.
            guard let index = leases.index(of: key) else {
                return .ask(RateLimitLease.want(after: nil, cap: cap, nowMilliseconds: nowMilliseconds))
            }
            let last = leases[at: index]
            guard let (decision, afterTake) = last.take(nowMilliseconds: nowMilliseconds) else {
                guard let (decision, next, ask) = last.onCredit(cap: cap, nowMilliseconds: nowMilliseconds) else {
                    return .ask(RateLimitLease.want(after: last, cap: cap, nowMilliseconds: nowMilliseconds))
                }
                leases[at: index] = next
                return .leased(decision, refill: ask)
            }
            var next = afterTake
            let refill = next.refill(cap: cap)
            if let refill { next.asked = refill }
            leases[at: index] = next
            return .leased(decision, refill: refill)
        }
    }

    /// The caller's lease here, if any.
    func lease(_ limitClass: RateLimitClass, caller: String) -> RateLimitLease? {
        let key = Key(limitClass, caller)
        return shard(key).leases.withLock { $0[key] }
    }

    /// Records that the caller's ask ahead of need ended without requests (`RateLimitLease.unanswered`).
    func unanswered(_ limitClass: RateLimitClass, caller: String, refused: Bool) {
        let key = Key(limitClass, caller)
        shard(key).leases.withLock { leases in
            guard let index = leases.index(of: key) else { return }
            leases[at: index] = leases[at: index].unanswered(refused: refused)
        }
    }

    /// Stores a lease Redis just gave, with what the caller's lease here still holds added
    /// (`RateLimitLease.merged`); `answersAsk`: it is what the caller's ask ahead of need brought.
    func keep(
        _ lease: RateLimitLease, _ limitClass: RateLimitClass, caller: String, answersAsk: Bool,
        nowMilliseconds: Int64
    ) {
        let key = Key(limitClass, caller)
        shard(key).leases.withLock { leases in
            if leases.count >= maxPerShard {
                leases.removeAll { $0.expiresAt <= nowMilliseconds }
                if leases.count >= maxPerShard { leases.removeAll { _ in true } }
            }
            leases.set(
                RateLimitLease.merged(
                    lease, into: leases[key], answersAsk: answersAsk, nowMilliseconds: nowMilliseconds),
                for: key)
        }
    }
}

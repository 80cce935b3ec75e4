import PreviewCore

/// One shard of `RateLimitLeases`: leases by class and caller in an open-addressing table
/// (linear probing over a power-of-two number of slots, at most three quarters full). A slot
/// holds the caller's hash, the key and the lease side by side, so the probe of a feed request
/// reads one slot, where a `Dictionary` reads its bitmap, its key and its value from three
/// places and hashes the key once more. Nothing is removed one by one: `removeAll(where:)`
/// rebuilds the table.
struct LeaseTable {
    /// The caller's hash is taken once, before any lock, for the shard and the slot alike.
    struct Key {
        let limitClass: RateLimitClass
        let caller: String
        let hash: Int

        init(_ limitClass: RateLimitClass, _ caller: String) {
            self.limitClass = limitClass
            self.caller = caller
            hash = caller.hashValue
        }
    }

    private struct Slot {
        /// False for a slot that holds nothing (its key and lease are placeholders).
        var used: Bool
        let key: Key
        var lease: RateLimitLease

        static let empty = Slot(
            used: false, key: Key(.feed, ""),
            lease: RateLimitLease(left: 0, remaining: 0, resetAt: 0, expiresAt: 0, size: 0))
    }

    private var slots = [Slot](repeating: .empty, count: 16)
    private(set) var count = 0

    /// Where the key's lease is, for `subscript(at:)`; nil when there is none.
    func index(of key: Key) -> Int? {
        let (index, found) = probe(key)
        return found ? index : nil
    }

    /// The lease at an index `index(of:)` gave, valid until the table is next changed by
    /// anything but this subscript.
    subscript(at index: Int) -> RateLimitLease {
        get { slots[index].lease }
        set { slots[index].lease = newValue }
    }

    subscript(key: Key) -> RateLimitLease? {
        index(of: key).map { self[at: $0] }
    }

    /// Stores the key's lease, replacing the one it had.
    mutating func set(_ lease: RateLimitLease, for key: Key) {
        var (index, found) = probe(key)
        if found {
            slots[index].lease = lease
            return
        }
        if (count + 1) * 4 > slots.count * 3 {
            rebuild(capacity: slots.count * 2) { _ in true }
            index = probe(key).index
        }
        slots[index] = Slot(used: true, key: key, lease: lease)
        count += 1
    }

    /// Drops every lease `drop` accepts.
    mutating func removeAll(where drop: (RateLimitLease) -> Bool) {
        rebuild(capacity: slots.count) { !drop($0) }
    }

    /// The slot holding the key, or the empty one where it would go.
    private func probe(_ key: Key) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        var index = key.hash & mask
        // Fields compared in place: a copy of the key would retain the caller's string.
        while slots[index].used {
            if slots[index].key.hash == key.hash, slots[index].key.limitClass == key.limitClass,
                slots[index].key.caller == key.caller
            {
                return (index, true)
            }
            index = (index &+ 1) & mask
        }
        return (index, false)
    }

    private mutating func rebuild(capacity: Int, keeping keep: (RateLimitLease) -> Bool) {
        let old = slots
        slots = [Slot](repeating: .empty, count: capacity)
        count = 0
        for slot in old where slot.used && keep(slot.lease) {
            slots[probe(slot.key).index] = slot
            count += 1
        }
    }
}

import Synchronization

/// What the per-address connection limit counts under: an IPv4 address, or the /64 an IPv6
/// address is in. One IPv6 host is usually given a whole /64, so counting single IPv6
/// addresses would let one client open the limit's worth of connections from each of 2^64.
/// An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, a dual-stack listener) counts as IPv4.
enum AddressGroup: Hashable, Sendable {
    case ipv4(UInt32)
    /// The first 64 bits of the address.
    case ipv6(UInt64)
    /// A peer address of another family, or none: never limited.
    case none

    /// The group of a 16-byte IPv6 address, in network order.
    init(ipv6 bytes: [UInt8]) {
        guard bytes.count == 16 else {
            self = .none
            return
        }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            self = .ipv4(bytes[12...].reduce(0) { $0 << 8 | UInt32($1) })
        } else {
            self = .ipv6(bytes[..<8].reduce(0) { $0 << 8 | UInt64($1) })
        }
    }
}

/// Open connections per `AddressGroup`, so one client cannot take every slot.
final class ConnectionsPerAddress: Sendable {
    private let limit: Int
    private let counts = Mutex<[AddressGroup: Int]>([:])

    init(limit: Int) {
        self.limit = limit
    }

    /// Counts a new connection from `group`; false when that puts the group over the limit
    /// (the connection is counted all the same, and `remove` must follow when it closes).
    func add(_ group: AddressGroup) -> Bool {
        guard group != .none else { return true }
        return counts.withLock { counts in
            let count = counts[group, default: 0] + 1
            counts[group] = count
            return count <= limit
        }
    }

    func remove(_ group: AddressGroup) {
        guard group != .none else { return }
        counts.withLock { counts in
            guard let count = counts[group] else { return }
            counts[group] = count > 1 ? count - 1 : nil
        }
    }
}

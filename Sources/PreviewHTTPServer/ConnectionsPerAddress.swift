import PreviewCore
import Synchronization

/// What the per-address limits of the server (connections, event streams) count under: the
/// peer's `IPAddress.limitPrefix` (an IPv4 address, or the /64 of an IPv6 one, an IPv4-mapped
/// IPv6 address counting as IPv4), as the rate limiter counts.
enum AddressGroup: Hashable, Sendable {
    case prefix(IPAddress)
    /// A peer address of another family, or none: never limited.
    case none

    init(_ address: IPAddress) { self = .prefix(address.limitPrefix) }

    /// The group of a 16-byte IPv6 address, in network order.
    init(ipv6 bytes: [UInt8]) {
        self = IPAddress(networkBytes: bytes).map(AddressGroup.init) ?? .none
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

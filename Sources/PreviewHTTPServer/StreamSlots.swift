import Synchronization

/// The slots of long-lived answers (event streams), counted apart from the connections that
/// serve requests: in all, and per client `AddressGroup`, so neither many clients nor one can
/// take what requests need. A connection moves here from the request connections when its
/// request is admitted with `RequestAdmission.openStream`, and stays until it closes.
final class StreamSlots: Sendable {
    /// Why `take` found no slot.
    enum Full: Error, Equatable {
        /// Every slot of the server is taken.
        case total
        /// The client's address group holds its share.
        case perAddress
    }

    let limit: Int
    private let perAddressLimit: Int
    private let state = Mutex<(total: Int, perAddress: [AddressGroup: Int])>((0, [:]))

    init(limit: Int, perAddressLimit: Int) {
        self.limit = limit
        self.perAddressLimit = perAddressLimit
    }

    /// Takes a slot for a connection from `group`; `release` gives it back when it closes.
    func take(_ group: AddressGroup) -> Result<Void, Full> {
        state.withLock { state in
            guard state.total < limit else { return .failure(.total) }
            if group != .none {
                let held = state.perAddress[group, default: 0]
                guard held < perAddressLimit else { return .failure(.perAddress) }
                state.perAddress[group] = held + 1
            }
            state.total += 1
            return .success(())
        }
    }

    func release(_ group: AddressGroup) {
        state.withLock { state in
            state.total -= 1
            guard group != .none, let held = state.perAddress[group] else { return }
            state.perAddress[group] = held > 1 ? held - 1 : nil
        }
    }

    /// Slots taken now.
    var taken: Int { state.withLock { $0.total } }
}

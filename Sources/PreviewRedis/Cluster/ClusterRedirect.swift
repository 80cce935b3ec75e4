import PreviewCore

/// What a cluster node's error reply says to do with a command it did not run.
public enum ClusterRedirect: Sendable, Equatable {
    /// `MOVED <slot> <host>:<port>`: the slot lives on that node now; update the map and resend.
    case moved(slot: Int, host: String, port: Int)
    /// `ASK <slot> <host>:<port>`: the slot is being migrated; send `ASKING` and the command
    /// to that node, once, without changing the map.
    case ask(slot: Int, host: String, port: Int)
    /// `TRYAGAIN`: the keys of a multi-key command are split by a migration; resend later.
    case tryAgain

    /// Parses an error reply's text; nil for any other error. An empty host (a node that does
    /// not know its own address) is kept empty; the caller fills in the host it asked.
    public init?(error message: String) {
        if message == "TRYAGAIN" || message.hasPrefix("TRYAGAIN ") {
            self = .tryAgain
            return
        }
        let parts = message.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[0] == "MOVED" || parts[0] == "ASK", let slot = Int(parts[1]),
            (0..<ClusterSlot.count).contains(slot), let (host, port) = HostAndPort.split(parts[2]),
            (1...65535).contains(port)
        else { return nil }
        self =
            parts[0] == "MOVED" ? .moved(slot: slot, host: host, port: port) : .ask(slot: slot, host: host, port: port)
    }
}

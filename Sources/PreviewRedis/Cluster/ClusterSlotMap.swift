import PreviewCore

/// Which primary serves each slot, read from a `CLUSTER SLOTS` reply. Pure code.
struct ClusterSlotMap: Sendable {
    /// A primary, as `host:port`, per slot; nil where no node serves the slot.
    private(set) var owners: [String?] = Array(repeating: nil, count: ClusterSlot.count)
    /// The distinct primaries, in the order they were first seen.
    private(set) var primaries: [String] = []

    init() {}

    /// Reads `[[start, end, [host, port, id...], replicas...]...]`. A node that reports an
    /// empty or unknown (`?`) host is reached at `askedHost`, the host that answered.
    init?(slotsReply reply: RedisValue, askedHost: String) {
        guard let ranges = reply.array else { return nil }
        for range in ranges {
            guard let parts = range.array, parts.count >= 3, let start = parts[0].int, let end = parts[1].int,
                let primary = parts[2].array, primary.count >= 2, let port = primary[1].int,
                0 <= start, start <= end, end < Int64(ClusterSlot.count)
            else { return nil }
            var host = primary[0].string ?? ""
            if host.isEmpty || host == "?" { host = askedHost }
            let address = Self.address(host: host, port: Int(port))
            for slot in Int(start)...Int(end) { owners[slot] = address }
            if !primaries.contains(address) { primaries.append(address) }
        }
    }

    /// Records the owner a `MOVED` reply named.
    mutating func assign(slot: Int, to address: String) {
        owners[slot] = address
        if !primaries.contains(address) { primaries.append(address) }
    }

    static func address(host: String, port: Int) -> String {
        HostAndPort.format(host: host, port: port)
    }
}

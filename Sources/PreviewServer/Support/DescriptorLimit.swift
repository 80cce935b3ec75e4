import Glibc

/// The process's open file limit (`RLIMIT_NOFILE`), which bounds the connections and event
/// streams `serve` can hold: each is a socket.
package enum DescriptorLimit {
    /// Descriptors kept for everything but client sockets: Redis connections, files the local
    /// store serves or receives, the embedded redis-server's pipes, webhook and hook calls.
    static let reserved = 512

    /// Raises the soft limit to the hard one (allowed to any process) and returns the soft limit
    /// in force afterwards; nil when it cannot be read.
    package static func raiseToHard() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The event streams that fit beside `connections` request connections under `limit`
    /// descriptors: `wanted`, or fewer when the limit is lower.
    package static func eventStreams(wanted: Int, connections: Int, limit: Int) -> Int {
        min(wanted, max(0, limit - connections - reserved))
    }
}

package import PreviewCore
import Synchronization

/// Every metric the process records, and the gauges a scrape reads from memory (open
/// connections; pending uploads and the sweeper's backlog as last refreshed from Redis).
package final class AppMetrics: Sendable {
    let http = HTTPMetrics()
    /// Object store calls by operation: `head`, `get`, `put`, `delete`, `post`, `other`.
    package let storage = CallMetrics(operations: ["head", "get", "put", "delete", "post", "other"])
    package let sweeper = SweeperMetrics()
    /// Webhook deliveries, retries, dead letters and the backlog.
    package let webhooks = WebhookMetrics()
    /// Requests refused by the rate limiter, and feed requests served unchecked.
    package let rateLimits = RateLimitMetrics()
    /// Pending uploads and the sweeper's backlog, refreshed from Redis in the background.
    package let redisGauges = RedisGauges()
    /// The moderation hook's verdicts and failures (`--commit-hook-url`).
    package let commitHook = CommitHookMetrics()
    /// Viewer actions counted in preview versions' figures, by kind.
    let figures = FigureMetrics()
    /// Connections open on the servers of this process; set once they are listening.
    private let connections = Mutex<(@Sendable () -> Int)?>(nil)

    package init() {}

    /// Where the open-connections gauge is read from.
    package func countConnections(_ read: @escaping @Sendable () -> Int) {
        connections.withLock { $0 = read }
    }

    var openConnections: Int? { connections.withLock { $0 }.map { $0() } }
}

/// The release this binary is and the compiler that built it, for `streampreview_build_info`.
enum BuildInfo {
    static let version = "0.1.0"

    static var swift: String {
        #if compiler(>=6.4)
            return ">=6.4"
        #elseif compiler(>=6.3)
            return "6.3"
        #elseif compiler(>=6.2)
            return "6.2"
        #else
            return "<6.2"
        #endif
    }
}

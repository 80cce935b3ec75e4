public import PreviewCore

/// Latency and failures of the calls a `RedisPool` serves: one call is one `withConnection`
/// (a command, a pipeline or a script, with the dial when no idle connection was there). The
/// node pools of a `RedisCluster` share one: there a call is one pipeline sent to a node.
/// Recording is a few relaxed atomic adds, no lock.
public final class RedisMetrics: Sendable {
    public let latency = LatencyHistogram()
    private let failures: [MetricCounter]
    /// Failure kinds, as rendered in the `kind` label.
    static let kinds = ["connection", "timeout", "protocol", "server", "other", "unavailable"]

    /// Empty counters; one instance may be shared by several pools (the nodes of a cluster).
    public init() {
        failures = Self.kinds.map { _ in MetricCounter() }
    }

    func failed(_ error: RedisError) {
        let kind: Int
        switch error.kind {
        case .connection: kind = 0
        case .timeout: kind = 1
        case .protocolError: kind = 2
        case .server: kind = 3
        case .invalidURL: kind = 4
        case .unavailable: kind = 5
        }
        failures[kind].add()
    }

    /// Failed calls of `kind` (`connection`, `timeout`, `protocol`, `server`, `other`,
    /// `unavailable`: the node cannot serve now, e.g. READONLY during a failover) so far.
    public func failures(kind: String) -> UInt64 {
        Self.kinds.firstIndex(of: kind).map { failures[$0].value } ?? 0
    }

    /// `streampreview_redis_call_duration_seconds` and `streampreview_redis_errors_total{kind}`.
    public func render(into text: inout PrometheusText) {
        text.family(
            "streampreview_redis_call_duration_seconds", .histogram,
            help: "Latency of Redis calls (a command, pipeline or script, dial included).")
        text.histogram("streampreview_redis_call_duration_seconds", latency)
        text.family("streampreview_redis_errors_total", .counter, help: "Failed Redis calls, by kind of failure.")
        for (slot, kind) in Self.kinds.enumerated() {
            text.sample("streampreview_redis_errors_total", labels: [("kind", kind)], failures[slot].value)
        }
    }
}

import Synchronization

/// A Prometheus counter: only goes up. One relaxed atomic add per event, so threads recording
/// at once never wait on each other.
public final class MetricCounter: Sendable {
    private let count = Atomic<UInt64>(0)

    public init() {}

    public func add(_ amount: UInt64 = 1) {
        count.add(amount, ordering: .relaxed)
    }

    public var value: UInt64 { count.load(ordering: .relaxed) }
}

/// A Prometheus gauge: a value set or moved up and down.
public final class MetricGauge: Sendable {
    private let current = Atomic<Int64>(0)

    public init() {}

    public func set(_ value: Int64) {
        current.store(value, ordering: .relaxed)
    }

    public func add(_ amount: Int64) {
        current.add(amount, ordering: .relaxed)
    }

    public var value: Int64 { current.load(ordering: .relaxed) }
}

extension Duration {
    /// The whole nanoseconds of a duration (negative ones as 0), for `LatencyHistogram`.
    public var metricNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : whole &+ attoseconds / 1_000_000_000
    }
}

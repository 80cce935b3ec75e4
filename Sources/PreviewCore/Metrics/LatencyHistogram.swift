import Synchronization

/// A Prometheus histogram of durations with fixed buckets from 100 µs to 10 s.
///
/// Recording is two relaxed atomic adds (the bucket and the sum), no lock; the count is the
/// sum of the buckets. A scrape reads the atomics one by one, so a sample recorded meanwhile
/// may be in the buckets and not yet in the sum: Prometheus tolerates that skew.
public final class LatencyHistogram: Sendable {
    /// Upper bounds in seconds, as rendered in `le`.
    public static let boundsSeconds: [Double] = [
        0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]
    /// The same bounds in nanoseconds, compared against observations.
    static let boundsNanoseconds: [Int64] = boundsSeconds.map { Int64(($0 * 1e9).rounded()) }

    /// Per-bucket (not cumulative) counts; the last slot is `+Inf`.
    private let buckets: InlineArray<17, Atomic<UInt64>>
    private let sumNanoseconds = Atomic<UInt64>(0)

    public init() {
        buckets = InlineArray { _ in Atomic(0) }
    }

    public func observe(nanoseconds: Int64) {
        let value = max(0, nanoseconds)
        var slot = 0
        let bounds = Self.boundsNanoseconds
        while slot < bounds.count, value > bounds[slot] { slot += 1 }
        buckets[slot].add(1, ordering: .relaxed)
        sumNanoseconds.add(UInt64(value), ordering: .relaxed)
    }

    public func observe(_ duration: Duration) {
        observe(nanoseconds: duration.metricNanoseconds)
    }

    /// Cumulative counts per bound (`le`), then `+Inf` (the count), and the sum in seconds.
    public func snapshot() -> (cumulative: [UInt64], sumSeconds: Double) {
        var cumulative: [UInt64] = []
        cumulative.reserveCapacity(buckets.count)
        var total: UInt64 = 0
        for slot in 0..<buckets.count {
            total &+= buckets[slot].load(ordering: .relaxed)
            cumulative.append(total)
        }
        return (cumulative, Double(sumNanoseconds.load(ordering: .relaxed)) / 1e9)
    }

    /// Observations so far.
    public var count: UInt64 {
        var total: UInt64 = 0
        for slot in 0..<buckets.count { total &+= buckets[slot].load(ordering: .relaxed) }
        return total
    }
}

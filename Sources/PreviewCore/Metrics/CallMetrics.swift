/// Latency and failures of the calls made to one dependency (the object store), by a fixed
/// set of operation names, so a label never takes an unbounded value.
public final class CallMetrics: Sendable {
    /// Label values; the last one also takes any name not in the list.
    public let operations: [String]
    private let latencies: [LatencyHistogram]
    private let failures: [MetricCounter]

    public init(operations: [String]) {
        self.operations = operations
        latencies = operations.map { _ in LatencyHistogram() }
        failures = operations.map { _ in MetricCounter() }
    }

    /// Records one call of `operation` that took `nanoseconds` and failed or not.
    public func record(_ operation: String, nanoseconds: Int64, failed: Bool) {
        let slot = operations.firstIndex(of: operation) ?? operations.count - 1
        latencies[slot].observe(nanoseconds: nanoseconds)
        if failed { failures[slot].add() }
    }

    /// Runs `body` as one call of `operation`; a thrown error counts as a failure.
    public func measure<C: Clock, T>(_ operation: String, clock: C, _ body: () throws -> T) rethrows -> T
    where C.Duration == Duration {
        let started = clock.now
        do {
            let result = try body()
            record(operation, nanoseconds: started.duration(to: clock.now).metricNanoseconds, failed: false)
            return result
        } catch {
            record(operation, nanoseconds: started.duration(to: clock.now).metricNanoseconds, failed: true)
            throw error
        }
    }

    /// Failed calls of `operation` so far.
    public func failureCount(_ operation: String) -> UInt64 {
        operations.firstIndex(of: operation).map { failures[$0].value } ?? 0
    }

    /// The histogram `latency{label}` and the counter `errors{label}`.
    public func render(
        into text: inout PrometheusText, latency: String, errors: String, label: String, subject: String
    ) {
        text.family(latency, .histogram, help: "Latency of \(subject) calls, by \(label).")
        for (slot, operation) in operations.enumerated() where latencies[slot].count > 0 {
            text.histogram(latency, labels: [(label, operation)], latencies[slot])
        }
        text.family(errors, .counter, help: "Failed \(subject) calls, by \(label).")
        for (slot, operation) in operations.enumerated() {
            text.sample(errors, labels: [(label, operation)], failures[slot].value)
        }
    }
}

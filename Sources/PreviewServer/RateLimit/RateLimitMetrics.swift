import PreviewCore

/// What the rate limiter refused, and the feed requests it let through because Redis could not
/// be asked.
package final class RateLimitMetrics: Sendable {
    private let limited = RateLimitClass.allCases.map { _ in MetricCounter() }
    private let failedOpen = RateLimitClass.allCases.map { _ in MetricCounter() }

    func recordLimited(_ limitClass: RateLimitClass) {
        limited[Self.slot(limitClass)].add()
    }

    /// Counts a request served unchecked; returns how many there have been, for the log.
    func recordFailOpen(_ limitClass: RateLimitClass) -> UInt64 {
        let counter = failedOpen[Self.slot(limitClass)]
        counter.add()
        return counter.value
    }

    func limitedCount(_ limitClass: RateLimitClass) -> UInt64 { limited[Self.slot(limitClass)].value }

    private static func slot(_ limitClass: RateLimitClass) -> Int {
        RateLimitClass.allCases.firstIndex(of: limitClass) ?? 0
    }

    func render(into text: inout PrometheusText) {
        let families = [
            ("streampreview_rate_limited_total", "Requests answered 429 rate_limited, by route class.", limited),
            (
                "streampreview_rate_limit_fail_open_total",
                "Requests served without a rate limit check because Redis could not be asked (the feed fails open).",
                failedOpen
            ),
        ]
        for (name, help, counters) in families {
            text.family(name, .counter, help: help)
            for (slot, limitClass) in RateLimitClass.allCases.enumerated() {
                text.sample(name, labels: [("class", limitClass.rawValue)], counters[slot].value)
            }
        }
    }
}

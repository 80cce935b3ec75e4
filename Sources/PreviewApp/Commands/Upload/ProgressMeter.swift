import PreviewServer

/// Decides when a progress display may draw: at most `maxPerSecond` times a second, whatever
/// rate libcurl reports at. Pure: the caller passes its monotonic clock's reading.
struct ProgressThrottle: Sendable, Equatable {
    var maxPerSecond = 10.0
    private var lastDraw: Double?

    init(maxPerSecond: Double = 10) { self.maxPerSecond = maxPerSecond }

    /// Whether a draw at `now` (seconds) is allowed; an allowed draw is recorded. A microsecond
    /// of slack keeps float rounding (`5.1 - 5.0 < 0.1`) from skipping a due draw.
    mutating func allows(now: Double) -> Bool {
        if let lastDraw, now - lastDraw < 1 / maxPerSecond - 1e-6 { return false }
        lastDraw = now
        return true
    }

    /// Lets the next update draw at once (after a line was printed over the bar).
    mutating func reset() { lastDraw = nil }
}

/// Bytes per second over the last `window` seconds of samples, so the rate and the time left
/// follow the link as it is now rather than since the start. Pure: samples carry their time.
struct RateMeter: Sendable {
    var window = 3.0
    private var samples: [(time: Double, sent: Int64)] = []

    init(window: Double = 3) { self.window = window }

    mutating func record(sent: Int64, at time: Double) {
        samples.append((time, sent))
        // Keep one sample at or before the window's start, so the span stays about `window`.
        while samples.count > 2, samples[1].time <= time - window { samples.removeFirst() }
    }

    /// Nil until two samples at least a tenth of a second apart exist.
    var bytesPerSecond: Double? {
        guard let first = samples.first, let last = samples.last, last.time - first.time >= 0.1 else { return nil }
        return Double(max(last.sent - first.sent, 0)) / (last.time - first.time)
    }
}

/// What a command started, in the order it started, and how to stop each: stopped in the
/// reverse order when the command returns (`serve`'s shutdown order is its start order read
/// backwards, listed in one place instead of a `defer` per part). Not thread-safe: one owner.
package final class StopOrder {
    private var parts: [(name: String, stop: () -> Void)] = []

    package init() {}

    /// Records a part that started; `stop` runs before the parts recorded earlier.
    package func started(_ name: String, stop: @escaping () -> Void) {
        parts.append((name, stop))
    }

    /// The parts' names in the order they will be stopped.
    var stopping: [String] { parts.reversed().map(\.name) }

    /// Stops every part, last started first; each at most once.
    package func stopAll() {
        while let part = parts.popLast() { part.stop() }
    }
}

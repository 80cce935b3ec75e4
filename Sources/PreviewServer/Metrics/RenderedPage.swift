import Synchronization

/// A page rendered at most once per `maxAgeMilliseconds` and shared by every request meanwhile.
/// Rendered under the lock, so requests that find it out of date wait for one render instead of
/// each making their own.
final class RenderedPage: Sendable {
    private let maxAgeMilliseconds: Int64
    private let state = Mutex<(bytes: [UInt8], renderedAt: Int64, renders: Int)?>(nil)

    init(maxAgeMilliseconds: Int64) {
        self.maxAgeMilliseconds = maxAgeMilliseconds
    }

    /// The page, rendered by `render` when none is held or it is `maxAgeMilliseconds` old.
    func bytes(nowMilliseconds: Int64, render: () -> [UInt8]) -> [UInt8] {
        state.withLock { state in
            if maxAgeMilliseconds > 0, let held = state, nowMilliseconds - held.renderedAt < maxAgeMilliseconds,
                nowMilliseconds >= held.renderedAt
            {
                return held.bytes
            }
            let bytes = render()
            state = (bytes, nowMilliseconds, (state?.renders ?? 0) + 1)
            return bytes
        }
    }

    /// Renders so far, for tests.
    var renders: Int { state.withLock { $0?.renders ?? 0 } }
}

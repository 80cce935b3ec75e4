import PreviewCore
import PreviewRedis
import Synchronization

/// The live streams with their likes, shared by every viewer: fetched from Redis at most once
/// per `maxAge` milliseconds per process, and dropped at once when this process changes it.
final class LiveListCache: Sendable {
    private struct Entry {
        var streams: [LiveStream]
        var fetchedAtMilliseconds: Int64
        var generation: UInt64
    }

    private let store: PreviewStore
    private let maxAgeMilliseconds: Int64
    private let state = Mutex<(entry: Entry?, generation: UInt64)>((nil, 0))

    init(store: PreviewStore, maxAgeMilliseconds: Int64) {
        self.store = store
        self.maxAgeMilliseconds = maxAgeMilliseconds
    }

    func streams(nowMilliseconds: Int64) throws -> [LiveStream] {
        let (cached, generation) = state.withLock { ($0.entry, $0.generation) }
        if let cached, cached.generation == generation,
            nowMilliseconds - cached.fetchedAtMilliseconds < maxAgeMilliseconds
        {
            return cached.streams
        }
        let streams = try store.liveStreams(now: nowMilliseconds / 1000)
        state.withLock { state in
            // A change made while we fetched bumps the generation; don't cache what may predate it.
            if state.generation == generation {
                state.entry = Entry(streams: streams, fetchedAtMilliseconds: nowMilliseconds, generation: generation)
            }
        }
        return streams
    }

    /// Called after this process publishes, removes or likes, so its next read is fresh.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entry = nil
        }
    }
}

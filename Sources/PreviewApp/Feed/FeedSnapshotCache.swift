import Dispatch
import PreviewCore
import PreviewRedis
import Synchronization

/// The feed snapshot shared by every request: the live list read from Redis at most once per
/// `maxAge` milliseconds and once per URL grid window (one load at a time, off the request path
/// while the previous snapshot is recent enough to serve meanwhile), and patched at once with
/// the changes this process makes, so its own writes show without a reload.
final class FeedSnapshotCache: Sendable {
    /// Mints a live stream's item (its URLs) at a time, as a template.
    typealias Render = @Sendable (_ stream: LiveStream, _ now: Int64) throws -> FeedItemTemplate

    private struct Writer {
        var loading = false
        /// Entered while a load runs: requests with nothing to serve wait for it rather than
        /// each reading the whole live list at once (which, at 10,000 streams and 64
        /// connections, took seconds).
        var loadDone: DispatchGroup?
        /// Patches made while a load is under way: the loaded list may predate them.
        var patchesDuringLoad: [FeedSnapshot.Patch] = []
        /// A change made during the load that no patch can carry: its result is not kept.
        var loadIsStale = false
    }

    private let store: PreviewStore
    private let maxAgeMilliseconds: Int64
    private let grid: ExpiryGrid
    /// The window the feed's URLs are signed for: how long they stay valid.
    var urlGrid: ExpiryGrid { grid }
    private let render: Render
    /// Read by every feed request; replaced only under `writer`.
    private let current = ReadMostly<FeedSnapshot?>(nil)
    /// Serialises everything that replaces `current`.
    private let writer = Mutex(Writer())
    /// Set by `expire()`: the snapshot is reloaded at the next read however recent it is.
    private let expired = Atomic<Bool>(false)

    init(store: PreviewStore, maxAgeMilliseconds: Int64, grid: ExpiryGrid, render: @escaping Render) {
        self.store = store
        self.maxAgeMilliseconds = maxAgeMilliseconds
        self.grid = grid
        self.render = render
    }

    func snapshot(nowMilliseconds: Int64) throws -> FeedSnapshot {
        let signingTime = grid.signingTime(at: nowMilliseconds / 1000)
        let cached = current.read()
        let age = cached.map { nowMilliseconds - $0.loadedAtMilliseconds } ?? .max
        if let cached, cached.signingTime == signingTime, age < maxAgeMilliseconds, !expired.load(ordering: .relaxed) {
            return cached
        }
        let (mayLoad, inFlight) = writer.withLock { writer -> (Bool, DispatchGroup?) in
            guard !writer.loading else { return (false, writer.loadDone) }
            writer.loading = true
            let done = DispatchGroup()
            done.enter()
            writer.loadDone = done
            return (true, nil)
        }
        if let cached, age < maxAgeMilliseconds * Self.staleServingFactor {
            // Slightly stale (or of the previous URL window, whose URLs stay valid far longer):
            // answer from it and read the list again off the request path, so no request (nor
            // the connections sharing its thread) waits for a reload.
            if mayLoad { reloadInBackground(nowMilliseconds: nowMilliseconds, signingTime: signingTime) }
            return cached
        }
        // No snapshot, or one too old to serve: wait for the load under way, or load here (when
        // there is none, it failed, or its result could not be kept: then without storing it).
        if let inFlight, inFlight.wait(timeout: .now() + Self.loadWaitSeconds) == .success,
            let loaded = current.read(), loaded.signingTime == signingTime,
            nowMilliseconds - loaded.loadedAtMilliseconds < maxAgeMilliseconds * Self.staleServingFactor
        {
            return loaded
        }
        return try load(nowMilliseconds: nowMilliseconds, signingTime: signingTime, owner: mayLoad)
    }

    /// How long a request with nothing to serve waits for another's load before it loads itself.
    private static let loadWaitSeconds = 10.0

    /// Past this many `maxAge`s a snapshot is not served while a reload runs: the request
    /// reloads itself, and fails if Redis does (a feed must not silently freeze).
    private static let staleServingFactor: Int64 = 10

    private func reloadInBackground(nowMilliseconds: Int64, signingTime: Int64) {
        DispatchQueue.global(qos: .userInitiated).async {
            do {
                _ = try self.load(nowMilliseconds: nowMilliseconds, signingTime: signingTime, owner: true)
            } catch {
                Log.warn("feed_reload_failed", ["error": "\(error)"])
            }
        }
    }

    /// Reads the live list and swaps in its snapshot. Without `owner` (no snapshot yet and
    /// another load under way) the result is returned but not stored.
    private func load(nowMilliseconds: Int64, signingTime: Int64, owner: Bool) throws -> FeedSnapshot {
        var built: FeedSnapshot
        do {
            let streams = try store.liveStreams(now: nowMilliseconds / 1000)
            let previous = current.read()
            let render = self.render
            built = try FeedSnapshot(
                streams: streams, signingTime: signingTime, loadedAtMilliseconds: nowMilliseconds,
                reusing: previous, render: { try render($0, nowMilliseconds / 1000) })
        } catch {
            if owner { writer.withLock { Self.finish(&$0) } }
            throw error
        }
        guard owner else { return built }
        return writer.withLock { writer in
            defer { Self.finish(&writer) }
            var keep = !writer.loadIsStale
            for patch in writer.patchesDuringLoad where keep {
                if let patched = built.applying(patch) { built = patched } else { keep = false }
            }
            // A result that may predate a change is not kept, but the snapshot being served is
            // (it carries this process's patches): it stays expired, so the next read answers
            // from it and loads again off the request path instead of on an I/O thread.
            guard keep else { return built }
            current.write(built)
            expired.store(false, ordering: .relaxed)
            return built
        }
    }

    /// The load ends: its waiters go on.
    private static func finish(_ writer: inout Writer) {
        writer.loadDone?.leave()
        writer = Writer()
    }

    // MARK: This process's changes

    /// A like or unlike, made here or heard from another process: the count kept is the newest.
    func liked(streamId: Int64, count: LikeCount) {
        apply(.likes(streamId: streamId, count: count))
        // A count of a version this snapshot does not hold yet: its publish, heard or answered
        // later, carries an older count, so the list is read again instead.
        let held = current.read()?.entry(streamId: streamId)?.preview.version ?? 0
        if held < count.version { expire() }
    }

    /// A preview published here.
    func published(_ stream: LiveStream, nowMilliseconds: Int64) {
        let signingTime = grid.signingTime(at: nowMilliseconds / 1000)
        guard let template = try? render(stream, nowMilliseconds / 1000) else {
            // Its URLs could not be minted now: the snapshot served meanwhile lacks this preview,
            // and the next read loads again off the request path.
            expire()
            return
        }
        apply(.published(stream, template: template, signingTime: signingTime))
    }

    /// A preview removed here (versions up to `version`).
    func removed(streamId: Int64, version: Int64) {
        apply(.removed(streamId: streamId, version: version))
    }

    private func apply(_ patch: FeedSnapshot.Patch) {
        writer.withLock { writer in
            if writer.loading { writer.patchesDuringLoad.append(patch) }
            guard let snapshot = current.read() else { return }
            let patched = snapshot.applying(patch)
            current.write(patched)
        }
    }

    /// Marks the snapshot as due for a reload (changes may have been missed): the next read
    /// answers from it once more and reloads off the request path. The last good snapshot is
    /// never dropped: a load under way that may have missed the change is discarded instead.
    func expire() {
        writer.withLock { writer in
            if writer.loading { writer.loadIsStale = true }
            expired.store(true, ordering: .relaxed)
        }
    }

    /// The snapshot held now, without loading one (metrics read it).
    var held: FeedSnapshot? { current.read() }

    /// Whether a load of the live list is under way (tests wait for one to end).
    var isLoading: Bool { writer.withLock { $0.loading } }
}

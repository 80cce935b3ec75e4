import Dispatch
package import PreviewCore
import PreviewRedis
import Synchronization

/// The feed snapshot shared by every request: the live list read from Redis at most once per
/// `maxAge` milliseconds and once per URL grid window (one load at a time, off the request path
/// while the previous snapshot is recent enough to serve meanwhile), and patched at once with
/// the changes this process makes, so its own writes show without a reload.
///
/// Two rules keep it whole across a URL window's turn and a burst of requests: a good snapshot
/// is never replaced by nothing (a change it cannot hold as it is, such as a preview rendered
/// for the next window, is rendered again for its window, and failing that only marks it for a
/// reload), and every request with nothing to serve shares the one load under way, its result
/// or its error, instead of reading the whole live list itself.
package final class FeedSnapshotCache: Sendable {
    /// Mints a live stream's item (its URLs) at a time, as a template.
    typealias Render = @Sendable (_ stream: LiveStream, _ now: Int64) throws -> FeedItemTemplate

    private struct Writer {
        /// The load under way, which requests with nothing to serve wait for.
        var load: SharedLoad?
        /// Patches made while a load is under way: the loaded list may predate them.
        var patchesDuringLoad: [FeedSnapshot.Patch] = []
        /// A change made during the load that no patch can carry: its result may lack it.
        var loadIsStale = false
    }

    private let store: PreviewStore
    private let maxAgeMilliseconds: Int64
    private let grid: ExpiryGrid
    /// The window the feed's URLs are signed for: how long they stay valid.
    var urlGrid: ExpiryGrid { grid }
    private let render: Render
    /// Read by every feed request; replaced only under `writer`, and never by nil.
    private let current = ReadMostly<FeedSnapshot?>(nil)
    /// Serialises everything that replaces `current`.
    private let writer = Mutex(Writer())
    /// Set by `expire()`: the snapshot is reloaded at the next read however recent it is.
    private let expired = Atomic<Bool>(false)
    /// Reads of the whole live list since start, for tests and `/metrics`.
    private let loads = Atomic<Int>(0)
    /// Requests waiting for a load now, for tests.
    private let waiting = Atomic<Int>(0)

    init(store: PreviewStore, maxAgeMilliseconds: Int64, grid: ExpiryGrid, render: @escaping Render) {
        self.store = store
        self.maxAgeMilliseconds = maxAgeMilliseconds
        self.grid = grid
        self.render = render
    }

    func snapshot(nowMilliseconds: Int64) throws -> FeedSnapshot {
        let signingTime = grid.signingTime(at: nowMilliseconds / 1000)
        let cached = current.read()
        if let cached, cached.signingTime == signingTime, age(of: cached, at: nowMilliseconds) < maxAgeMilliseconds,
            !expired.load(ordering: .relaxed)
        {
            return cached
        }
        if let cached, isServable(cached, at: nowMilliseconds) {
            // Slightly stale (or of the previous URL window, whose URLs stay valid far longer):
            // answer from it and read the list again off the request path, so no request (nor
            // the connections sharing its thread) waits for a reload.
            let (load, owner) = joinLoad()
            if owner { reloadInBackground(load, nowMilliseconds: nowMilliseconds) }
            return cached
        }
        // No snapshot, or one too old to serve: share the load under way, or be the one that loads.
        let (load, owner) = joinLoad()
        if owner { return try run(load, nowMilliseconds: nowMilliseconds).get() }
        waiting.add(1, ordering: .relaxed)
        defer { waiting.subtract(1, ordering: .relaxed) }
        return try load.outcome(waitingAtMost: Self.loadWaitSeconds).get()
    }

    private func age(of snapshot: FeedSnapshot, at nowMilliseconds: Int64) -> Int64 {
        nowMilliseconds - snapshot.loadedAtMilliseconds
    }

    /// Whether a snapshot may answer while a newer one is read off the request path. Past
    /// `staleServingFactor` ages it may not: a feed must not silently freeze when Redis is gone.
    private func isServable(_ snapshot: FeedSnapshot, at nowMilliseconds: Int64) -> Bool {
        age(of: snapshot, at: nowMilliseconds) < maxAgeMilliseconds * Self.staleServingFactor
    }

    /// How long a request with nothing to serve waits for the load under way.
    private static let loadWaitSeconds = 10.0

    /// Past this many `maxAge`s a snapshot is not served while a reload runs: the request waits
    /// for the reload, and fails if Redis does.
    private static let staleServingFactor: Int64 = 10

    /// The load under way, or a new one that the caller owns (runs).
    private func joinLoad() -> (load: SharedLoad, owner: Bool) {
        writer.withLock { writer in
            if let load = writer.load { return (load, false) }
            let load = SharedLoad()
            writer.load = load
            return (load, true)
        }
    }

    private func reloadInBackground(_ load: SharedLoad, nowMilliseconds: Int64) {
        DispatchQueue.global(qos: .userInitiated).async {
            if case .failure(let error) = self.run(load, nowMilliseconds: nowMilliseconds) {
                Log.warn("feed_reload_failed", ["error": "\(error)"])
            }
        }
    }

    /// Reads the live list and swaps in its snapshot; every request waiting on `load` gets the
    /// same result or error.
    package func run(_ load: SharedLoad, nowMilliseconds: Int64) -> Result<FeedSnapshot, any Error> {
        let result = Result { try read(nowMilliseconds: nowMilliseconds) }.map { keep($0) }
        if case .failure = result { writer.withLock { $0 = Writer() } }
        load.finish(result)
        return result
    }

    package func read(nowMilliseconds: Int64) throws -> FeedSnapshot {
        let signingTime = grid.signingTime(at: nowMilliseconds / 1000)
        loads.add(1, ordering: .relaxed)
        let streams = try store.liveStreams(now: nowMilliseconds / 1000)
        let render = self.render
        return try FeedSnapshot(
            streams: streams, signingTime: signingTime, loadedAtMilliseconds: nowMilliseconds,
            reusing: current.read(), ranking: store.figures.ranking, render: { try render($0, nowMilliseconds / 1000) })
    }

    /// Stores a loaded snapshot with the patches made while it was read; what it returns is what
    /// the load's waiters get. A result that may predate a change is stored only when nothing
    /// better is held, and then stays expired, so the next read loads again off the request path;
    /// otherwise the snapshot being served is kept (it carries this process's patches).
    private func keep(_ loaded: FeedSnapshot) -> FeedSnapshot {
        writer.withLock { writer in
            defer { writer = Writer() }
            var built = loaded
            var whole = !writer.loadIsStale
            for patch in writer.patchesDuringLoad where whole {
                if let patched = adapting(patch, to: built) { built = patched } else { whole = false }
            }
            if whole {
                current.write(built)
                expired.store(false, ordering: .relaxed)
            } else if current.read().map({ !isServable($0, at: built.loadedAtMilliseconds) }) ?? true {
                current.write(built)
                expired.store(true, ordering: .relaxed)
            }
            return built
        }
    }

    /// `snapshot` with `patch` applied; a preview rendered for another URL window is rendered
    /// again for the snapshot's. Nil only when that render fails.
    private func adapting(_ patch: FeedSnapshot.Patch, to snapshot: FeedSnapshot) -> FeedSnapshot? {
        if let patched = snapshot.applying(patch) { return patched }
        guard case .published(let stream, _, _) = patch else { return nil }
        // A second of the snapshot's own window, as near to now as the window allows.
        let window = snapshot.signingTime...(snapshot.signingTime + grid.window - 1)
        let now = min(max(stream.preview.updatedAt, window.lowerBound), window.upperBound)
        guard let template = try? render(stream, now) else { return nil }
        return snapshot.applying(.published(stream, template: template, signingTime: snapshot.signingTime))
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
        let held = writer.withLock { writer -> Bool in
            if writer.load != nil { writer.patchesDuringLoad.append(patch) }
            guard let snapshot = current.read() else { return true }
            guard let patched = adapting(patch, to: snapshot) else { return false }
            current.write(patched)
            return true
        }
        // Kept as it is, without the change: reloaded at the next read, off the request path.
        if !held { expire() }
    }

    /// Marks the snapshot as due for a reload (changes may have been missed): the next read
    /// answers from it once more and reloads off the request path. The last good snapshot is
    /// never dropped: a load under way that may have missed the change is not stored over it.
    func expire() {
        writer.withLock { writer in
            if writer.load != nil { writer.loadIsStale = true }
            expired.store(true, ordering: .relaxed)
        }
    }

    /// The snapshot held now, without loading one (metrics read it).
    var held: FeedSnapshot? { current.read() }

    /// Whether a load of the live list is under way (tests wait for one to end).
    var isLoading: Bool { writer.withLock { $0.load != nil } }

    /// Reads of the whole live list since start.
    var liveListReads: Int { loads.load(ordering: .relaxed) }

    /// Requests waiting for the load under way now.
    var requestsWaiting: Int { waiting.load(ordering: .relaxed) }
}

/// One read of the live list, and its outcome for every request that waited for it.
package final class SharedLoad: Sendable {
    private let done = DispatchGroup()
    private let result = Mutex<Result<FeedSnapshot, any Error>?>(nil)

    init() { done.enter() }

    func finish(_ outcome: Result<FeedSnapshot, any Error>) {
        result.withLock { $0 = outcome }
        done.leave()
    }

    /// The load's outcome; a `RedisError` timeout when it takes longer than `seconds`.
    func outcome(waitingAtMost seconds: Double) -> Result<FeedSnapshot, any Error> {
        guard done.wait(timeout: .now() + seconds) == .success, let outcome = result.withLock({ $0 }) else {
            return .failure(RedisError(kind: .timeout, message: "the live list took over \(Int(seconds)) s to read"))
        }
        return outcome
    }
}

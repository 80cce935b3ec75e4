import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// The counts of one sweeper run: `swept previews=N objects=M kept=K failed=F seconds=S`, as
/// `sweep` prints it on stdout and the loop of `serve` logs it (`event=sweep result="swept …"`).
struct SweepSummary: Equatable {
    var previews = 0
    var objects = 0
    var kept = 0
    var failed = 0

    /// Every summary in `text`, in order.
    static func all(in text: String) -> [SweepSummary] {
        var found: [SweepSummary] = []
        var rest = text[...]
        while let start = rest.range(of: "swept previews=") {
            let line = rest[start.lowerBound...].prefix { $0 != "\n" && $0 != "\"" }
            var summary = SweepSummary()
            for field in line.split(separator: " ") {
                let parts = field.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, let value = Int(parts[1]) else { continue }
                switch parts[0] {
                case "previews": summary.previews = value
                case "objects": summary.objects = value
                case "kept": summary.kept = value
                case "failed": summary.failed = value
                default: break
                }
            }
            found.append(summary)
            rest = rest[start.upperBound...]
        }
        return found
    }

    /// The one summary a `sweep` run printed; nil unless there is exactly one.
    static func only(in text: String) -> SweepSummary? {
        let all = all(in: text)
        return all.count == 1 ? all[0] : nil
    }
}

extension ServiceProcess {
    /// `streampreview sweep --data-dir <this server's data dir> <arguments>` to completion, with the
    /// server's test clock.
    func sweep(_ arguments: [String] = []) throws -> ProcessResult {
        try run(["sweep", "--data-dir", dataDirectory] + arguments)
    }

    /// `sweep` started in the background, with the server's test clock.
    func startSweep(_ arguments: [String] = []) throws -> BackgroundRun {
        try startRun(["sweep", "--data-dir", dataDirectory] + arguments)
    }

    /// The embedded Redis of this server (`<data-dir>/redis/redis.sock`), for reading what it holds.
    func redisProbe() -> RedisProbe { RedisProbe(serveDataDirectory: dataDirectory) }
}

/// The object keys a local store under `dataDirectory` holds (files under `objects/data/`).
/// Throws when the folder cannot be listed, so "deleted" is never concluded from a failed look.
func storedKeys(_ dataDirectory: String) throws -> Set<String> {
    let folder = dataDirectory + "/objects/data"
    guard let walk = FileManager.default.enumerator(atPath: folder) else {
        throw ServiceProcessError("cannot list \(folder)")
    }
    var keys = Set<String>()
    while let path = walk.nextObject() as? String {
        if walk.fileAttributes?[.type] as? FileAttributeType == .typeRegular { keys.insert(path) }
    }
    return keys
}

/// What the sweeper's index in Redis accounts for, for some streams: the live previews' object
/// keys and the keys in the streams' garbage and deleting sets.
struct SweepIndex {
    var live = Set<String>()
    var garbage = Set<String>()
    var deleting = Set<String>()

    var all: Set<String> { live.union(garbage).union(deleting) }

    static func read(_ probe: RedisProbe, streams: some Sequence<Int64>, prefix: String = "sp") throws -> SweepIndex {
        let keys = RedisKeys(prefix: prefix)
        var index = SweepIndex()
        for id in streams {
            index.live.formUnion(try probe.strings(["HMGET", keys.preview(id), "movieKey", "thumbnailKey"]))
            index.garbage.formUnion(try probe.strings(["ZRANGE", keys.garbage(id), "0", "-1"]))
            index.deleting.formUnion(try probe.strings(["ZRANGE", keys.deleting(id), "0", "-1"]))
        }
        return index
    }
}

/// Uploads through the public API with one admin token, remembering the bytes put under each
/// object key, so what survives a sweep can be compared byte for byte.
final class SweepSeeder {
    struct Upload {
        var uploadId: String
        var movieKey: String
        var thumbnailKey: String
        var keys: [String] { [movieKey, thumbnailKey] }
    }

    let api: APIClient
    let token: String
    /// The object key an upload URL names.
    let keyOfURL: (String) -> String?
    private(set) var uploaded: [String: [UInt8]] = [:]

    /// `keyOfURL` reads the object key from an upload URL: by default one of the local store.
    init(_ service: ServiceProcess, keyOfURL: @escaping (String) -> String? = { objectKey(ofURL: $0) }) throws {
        api = try APIClient(service)
        token = try service.token(sub: "ops", role: "admin")
        self.keyOfURL = keyOfURL
    }

    /// post, then PUT both objects (expecting 200 each); not committed.
    func upload(streamId: Int64, seed: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> Upload {
        let movie = TestMedia.mp4(size: 1500 + seed % 700, seed: UInt8(truncatingIfNeeded: seed))
        let thumbnail = TestMedia.jpeg(size: 300 + seed % 200, seed: UInt8(truncatingIfNeeded: seed &* 7))
        let issued = try api.issue(
            streamId: streamId, movie: movie, thumbnail: thumbnail, token: token, sourceLocation: sourceLocation)
        let moviePut = try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie)
        try #require(moviePut.status == 200, "movie PUT: \(moviePut.text)", sourceLocation: sourceLocation)
        let thumbnailPut = try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail)
        try #require(thumbnailPut.status == 200, "thumbnail PUT: \(thumbnailPut.text)", sourceLocation: sourceLocation)
        let upload = Upload(
            uploadId: issued.uploadId,
            movieKey: try #require(keyOfURL(issued.movieBodyUrl), sourceLocation: sourceLocation),
            thumbnailKey: try #require(keyOfURL(issued.movieThumbnailBodyUrl), sourceLocation: sourceLocation))
        uploaded[upload.movieKey] = movie
        uploaded[upload.thumbnailKey] = thumbnail
        return upload
    }

    /// An upload, committed (expecting 200): the stream's new live preview.
    @discardableResult
    func publish(streamId: Int64, seed: Int, sourceLocation: SourceLocation = #_sourceLocation) throws -> Upload {
        let upload = try upload(streamId: streamId, seed: seed, sourceLocation: sourceLocation)
        let committed = try api.commit(streamId: streamId, uploadId: upload.uploadId, token: token)
        try #require(
            committed.status == 200, "commit: \(committed.status) \(committed.text)", sourceLocation: sourceLocation)
        return upload
    }

    /// Ends the stream (DELETE /api/preview/{id}, expecting 204): its preview's objects enter the grace.
    func end(streamId: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let ended = try api.send("DELETE", "/api/preview/\(streamId)", token: token)
        try #require(
            ended.status == 204, "end of stream: \(ended.status) \(ended.text)", sourceLocation: sourceLocation)
    }
}

/// A random number generator with a fixed seed (SplitMix64), so a test's random choices are the
/// same on every run.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body(0..<parts)` on threads of their own, all at once (seeding a large run faster), and
/// returns the results in order; the first error thrown is rethrown.
func inParallel<T: Sendable>(_ parts: Int, _ body: @escaping @Sendable (Int) throws -> T) throws -> [T] {
    let results = Mutex([Int: Result<T, any Error>]())
    let group = DispatchGroup()
    for part in 0..<parts {
        group.enter()
        Thread.detachNewThread {
            defer { group.leave() }
            let result = Result { try body(part) }
            results.withLock { $0[part] = result }
        }
    }
    group.wait()
    let finished = results.withLock { $0 }
    return try (0..<parts).map { part in
        guard let result = finished[part] else { throw ServiceProcessError("part \(part) did not run") }
        return try result.get()
    }
}

import Foundation
import PreviewCore
import PreviewTestSupport
import Synchronization
import Testing

/// Commits and sweeps of the same streams from separate processes at once: the feed never
/// points at a deleted object, and an upload committed at its deadline is either refused or
/// keeps its objects.
@Suite("Sweep: races with commits")
struct SweepRaceTests {
    static let streams: [Int64] = Array(1...20)
    static let workers = 4
    /// The test ends once this much happened, whatever the machine's speed: commits, sweep runs
    /// that deleted objects while commits went on, and uploads committed at their deadline
    /// (accepted or refused). A slow machine takes longer, up to `deadline`.
    static let enoughCommits = 200
    static let enoughSweepsThatDeleted = 3
    static let enoughLateOutcomes = 10
    static let deadline = 600
    /// Streams from here on have their uploads committed at the last moment of their commit
    /// window, five at a time, each stream once.
    static let firstLateStream: Int64 = 101
    /// Replaced objects stay this long: longer than the feed cache (1 s) plus a slow GET.
    static let grace = 5

    /// What the threads of the test saw.
    struct Seen: Sendable {
        var commits = 0
        var refusedPuts = 0
        var violations: [String] = []
        var sweepRuns = 0
        var sweepsThatDeleted = 0
        var sweptObjects = 0
        var feedChecks = 0
        var lateCommitted: [Int64: [String]] = [:]
        var lateRefused = 0

        var enough: Bool {
            commits >= SweepRaceTests.enoughCommits && sweepsThatDeleted >= SweepRaceTests.enoughSweepsThatDeleted
                && lateCommitted.count + lateRefused >= SweepRaceTests.enoughLateOutcomes
        }
    }

    @Test(
        "Commits while sweep runs in a loop, until enough of each happened: no feed entry or fresh commit points at a deleted object"
    )
    func commitsAndSweepsNeverPublishDeletedObjects() throws {
        // Upload URLs live 5 s (a PUT of a loaded machine still makes it; one that does not is
        // refused and counts for nothing); uploads must be committed 1 s after that.
        let service = try ServiceProcess(arguments: [
            "--sweep-interval", "0", "--grace", String(Self.grace), "--upload-url-ttl", "5", "--commit-window", "1",
            "--max-pending-uploads", "1000",
        ])
        let token = try service.token(sub: "ops", role: "admin")
        let seen = Mutex(Seen())
        let done = Atomic(false)
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () throws -> Void) {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                do { try body() } catch { seen.withLock { $0.violations.append("thread failed: \(error)") } }
            }
        }

        spawn {
            while !done.load(ordering: .relaxed) {
                let run = try service.sweep(["--grace", String(Self.grace)])
                let summary = SweepSummary.only(in: run.stdout)
                seen.withLock { seen in
                    seen.sweepRuns += 1
                    seen.sweptObjects += summary?.objects ?? 0
                    if (summary?.objects ?? 0) > 0 && seen.commits > 0 { seen.sweepsThatDeleted += 1 }
                    if run.status != 0 || summary == nil || summary?.failed != 0 {
                        seen.violations.append("sweep exited \(run.status): \(run.stdout) \(run.stderr)")
                    }
                }
            }
        }
        spawn {
            let api = try APIClient(service)
            while !done.load(ordering: .relaxed) {
                for item in try api.feedItems(query: "limit=100") {
                    for url in [item.movieUrl, item.thumbnailUrl] {
                        let status = try api.send("GET", url).status
                        seen.withLock { seen in
                            seen.feedChecks += 1
                            if status != 200 {
                                seen.violations.append("feed entry of stream \(item.streamId): GET \(url) → \(status)")
                            }
                        }
                    }
                }
            }
        }
        let finished = Atomic(0)
        for worker in 0..<Self.workers {
            spawn {
                defer { finished.add(1, ordering: .relaxed) }
                let api = try APIClient(service)
                let mine = Self.streams.filter { Int($0) % Self.workers == worker }
                var round = 0
                while !done.load(ordering: .relaxed) {
                    round += 1
                    for id in mine {
                        let outcome = try Self.commitRound(api, token: token, streamId: id, seed: round)
                        seen.withLock { seen in
                            switch outcome {
                            case .committed: seen.commits += 1
                            case .putRefused: seen.refusedPuts += 1
                            case .violation(let text): seen.violations.append(text)
                            }
                        }
                    }
                }
            }
        }
        spawn {
            defer { finished.add(1, ordering: .relaxed) }
            let api = try APIClient(service)
            var next = Self.firstLateStream
            while !done.load(ordering: .relaxed) {
                let ids = next..<(next + 5)
                next += 5
                let uploads = try ids.map { id in (id, try Self.issueAndPut(api, token: token, streamId: id)) }
                for (id, issued) in uploads {
                    guard let issued else {
                        seen.withLock { $0.refusedPuts += 1 }
                        continue
                    }
                    let outcome = try Self.commitAtDeadline(api, token: token, streamId: id, issued: issued)
                    seen.withLock { seen in
                        switch outcome {
                        case .committed(let keys): seen.lateCommitted[id] = keys
                        case .refused: seen.lateRefused += 1
                        case .violation(let text): seen.violations.append(text)
                        }
                    }
                }
            }
        }
        // Decided on events: enough of each happened (a slow machine only takes longer), or a
        // violation was seen, or a thread failed.
        let happened = eventually(within: Self.deadline) {
            seen.withLock { $0.enough || !$0.violations.isEmpty } || finished.load(ordering: .relaxed) > 0
        }
        done.store(true, ordering: .relaxed)
        group.wait()

        let result = seen.withLock { $0 }
        #expect(result.violations.isEmpty, "\(result.violations.count) violations: \(result.violations.prefix(5))")
        let counts =
            "commits \(result.commits), sweeps that deleted \(result.sweepsThatDeleted), "
            + "late commits \(result.lateCommitted.count) + refused \(result.lateRefused)"
        #expect(happened && result.enough, "within \(Self.deadline) s: \(counts)")
        #expect(result.feedChecks > 0)
        // Every upload committed at its deadline is still there, now that all sweeps are over.
        let last = try service.sweep(["--grace", String(Self.grace)])
        #expect(last.status == 0, "\(last.stdout) \(last.stderr)")
        for (id, keys) in result.lateCommitted.sorted(by: { $0.key < $1.key }) {
            for key in keys { #expect(try storedObject(service, key: key) != nil, "stream \(id): \(key) deleted") }
        }
        print(
            "sweep race: commits=\(result.commits) refused_puts=\(result.refusedPuts) sweeps=\(result.sweepRuns) "
                + "swept_objects=\(result.sweptObjects) feed_checks=\(result.feedChecks) "
                + "late_committed=\(result.lateCommitted.count) late_refused=\(result.lateRefused)")
    }

    @Test("An upload the sweeper condemned but has not yet forgotten cannot be committed, so it is never published")
    func condemnedUploadIsNotPublished() throws {
        let service = try ServiceProcess(arguments: ["--sweep-interval", "0"])
        let seeder = try SweepSeeder(service)
        let upload = try seeder.upload(streamId: 9, seed: 9)
        // The state a sweeper leaves between its two steps (or when it dies between them): the
        // keys moved from the garbage set to the deleting set, the upload record not yet deleted,
        // the stream due.
        let probe = service.redisProbe()
        let keys = RedisKeys()
        try probe.perform(["ZADD", keys.sweepQueue, String(unixNow()), "9"])
        try probe.perform(["ZREM", keys.garbage(9)] + upload.keys)
        try probe.perform([
            "ZADD", keys.deleting(9), String(unixNow()), upload.keys[0], String(unixNow()), upload.keys[1],
        ])
        try #require(try probe.integer(["EXISTS", keys.upload(9, upload.uploadId)]) == 1)

        let committed = try seeder.api.commit(streamId: 9, uploadId: upload.uploadId, token: seeder.token)
        expectError(committed, status: 409, code: "upload_not_found")
        let sweep = try service.sweep()
        #expect(sweep.status == 0, "\(sweep.stdout) \(sweep.stderr)")
        #expect(SweepSummary.only(in: sweep.stdout)?.objects == 2)
        for item in try seeder.api.feedItems() {
            #expect(try seeder.api.send("GET", item.movieUrl).status == 200, "the feed points at a deleted object")
        }
    }

    enum RoundOutcome {
        case committed
        /// The upload URL ran out before the PUT (a slow moment of the machine): nothing published.
        case putRefused
        case violation(String)
    }

    /// post, PUT both, commit; then GET both URLs of the committed preview.
    static func commitRound(_ api: APIClient, token: String, streamId: Int64, seed: Int) throws -> RoundOutcome {
        let movie = TestMedia.mp4(size: 1200 + seed, seed: UInt8(truncatingIfNeeded: seed))
        let thumbnail = TestMedia.jpeg(size: 300, seed: UInt8(truncatingIfNeeded: seed))
        let issued = try api.issue(streamId: streamId, movie: movie, thumbnail: thumbnail, token: token)
        let puts = [
            try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie).status,
            try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail).status,
        ]
        guard puts == [200, 200] else {
            return puts.allSatisfy { $0 == 200 || $0 == 403 } ? .putRefused : .violation("PUTs answered \(puts)")
        }
        let committed = try api.commit(streamId: streamId, uploadId: issued.uploadId, token: token)
        guard committed.status == 200 else {
            return .violation("commit of stream \(streamId) answered \(committed.status): \(committed.text)")
        }
        let item = try committed.json(FeedItem.self)
        for url in [item.movieUrl, item.thumbnailUrl] {
            let status = try api.send("GET", url).status
            if status != 200 { return .violation("fresh commit of stream \(streamId): GET \(url) → \(status)") }
        }
        return .committed
    }

    enum LateOutcome {
        case committed([String])
        /// 409 upload_not_found: the commit came too late.
        case refused
        case violation(String)
    }

    /// post, then PUT both objects; the issued upload, or nil when a PUT came after the 5 s upload
    /// URL expired (a slow moment of the machine). Any other PUT answer throws.
    static func issueAndPut(_ api: APIClient, token: String, streamId: Int64) throws -> StreamPreviewPostResponse? {
        let movie = TestMedia.mp4(size: 1300, seed: UInt8(truncatingIfNeeded: streamId))
        let thumbnail = TestMedia.jpeg(size: 300)
        let issued = try api.issue(streamId: streamId, movie: movie, thumbnail: thumbnail, token: token)
        let puts = [
            try api.put(issued.movieBodyUrl, headers: issued.movieHeaders, body: movie).status,
            try api.put(issued.movieThumbnailBodyUrl, headers: issued.thumbnailHeaders, body: thumbnail).status,
        ]
        if puts == [200, 200] { return issued }
        guard puts.allSatisfy({ $0 == 200 || $0 == 403 }) else {
            throw ServiceProcessError("PUTs of stream \(streamId) answered \(puts)")
        }
        return nil
    }

    /// Commits in the last fifth of a second of the commit window (`expiresAt` + 1 s), when the
    /// sweeper may condemn the upload at any moment; a 200 is checked by GETting both objects.
    static func commitAtDeadline(
        _ api: APIClient, token: String, streamId: Int64, issued: StreamPreviewPostResponse
    ) throws -> LateOutcome {
        let lastMoment = Double(issued.expiresAt + 1) + 0.8 + Double(streamId % 10) / 50
        _ = eventually(within: 10) { Date().timeIntervalSince1970 >= lastMoment }
        let committed = try api.commit(streamId: streamId, uploadId: issued.uploadId, token: token)
        switch committed.status {
        case 200:
            let item = try committed.json(FeedItem.self)
            var keys: [String] = []
            for url in [item.movieUrl, item.thumbnailUrl] {
                let status = try api.send("GET", url).status
                if status != 200 {
                    return .violation("stream \(streamId) committed at its deadline: GET \(url) → \(status)")
                }
                guard let key = objectKey(ofURL: url) else { return .violation("not an object URL: \(url)") }
                keys.append(key)
            }
            return .committed(keys)
        case 409 where (try? committed.json(ErrorResponse.self).code) == "upload_not_found":
            return .refused
        default:
            return .violation("late commit of stream \(streamId) answered \(committed.status): \(committed.text)")
        }
    }
}

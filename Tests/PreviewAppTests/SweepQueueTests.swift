import PreviewCore
import PreviewRedis
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// The sweeper's queue, lease and per-stream garbage against a real Redis and the real local
/// store, with a clock the test moves.
@Suite struct SweepQueueTests {
    struct Injected: Error {}

    func redis(_ app: AppHarness, _ arguments: [String]) throws -> RedisValue {
        try app.redis.connection().command(arguments)
    }

    func queued(_ app: AppHarness) throws -> [String] {
        try redis(app, ["ZRANGE", app.context.store.keys.sweepQueue, "0", "-1"]).array?.compactMap(\.string) ?? []
    }

    func lease(_ store: PreviewStore, milliseconds: Int64 = 60_000) throws -> Int64? {
        guard case .acquired(let token) = try store.acquireSweepLease(milliseconds: milliseconds) else { return nil }
        return token
    }

    @Test func aRunFindingTheLeaseHeldDoesNothingAndTheNextRunDoesTheWork() throws {
        let app = try AppHarness()
        let first = try app.publish(stream: 1)
        try app.publish(stream: 1)
        app.advance(seconds: 3601)
        let token = try #require(try lease(app.context.store))

        let blocked = try app.sweep()
        #expect(blocked.stop == .leaseHeld)
        #expect(blocked.objectsDeleted == 0)
        let endsIn = try #require(blocked.leaseEndsInSeconds, "the run says when the lease ends")
        #expect(endsIn > 0 && endsIn <= 60)
        #expect(blocked.summary.contains(" stop=lease_held lease_ends_in="), "\(blocked.summary)")
        #expect(try app.objectExists(first.movieUrl))

        try app.context.store.releaseSweepLease(token: token)
        let report = try app.sweep()
        #expect(report.stop == .drained)
        #expect(report.objectsDeleted == 2)
        #expect(try !app.objectExists(first.movieUrl))
    }

    @Test func aSweeperThatLostItsLeaseCanNeitherClaimNorSettle() throws {
        let app = try AppHarness()
        let store = app.context.store
        try store.enqueueSweep([(7, app.now)], now: app.now)
        let old = try #require(try lease(store))
        _ = try redis(app, ["DEL", store.keys.sweepLease])
        let new = try #require(try lease(store))
        #expect(new > old, "fencing tokens only grow")

        #expect(try store.claimDueStreams(token: old, now: app.now, limit: 10, claimUntil: app.now + 120) == nil)
        #expect(try !store.renewSweepLease(token: old, milliseconds: 60_000))
        #expect(
            try !store.settleSweep(
                token: old, now: app.now, settleSeconds: 0, claimUntil: app.now + 120, next: [(7, nil)]))
        #expect(try queued(app) == ["7"], "the stale sweeper changed nothing")
        let claimed = try store.claimDueStreams(token: new, now: app.now, limit: 10, claimUntil: app.now + 120)
        #expect(claimed?.streamIds == [7])
    }

    @Test func claimsOfADeadSweeperAreTakenOverAtOnceWithTheKeysItWasDeleting() throws {
        let app = try AppHarness()
        let store = app.context.store
        let first = try app.publish(stream: 3)
        try app.publish(stream: 3)
        app.advance(seconds: 3601)
        // A sweeper claims stream 3 and its two due keys, then dies: its claims run 120 s.
        let dead = try #require(try lease(store))
        let claimUntil = app.now + 120
        let claimed = try #require(
            try store.claimDueStreams(token: dead, now: app.now, limit: 10, claimUntil: claimUntil))
        #expect(claimed.streamIds == [3] && claimed.takenOver.isEmpty)
        let collected = try store.collectGarbage(
            streamIds: [3], now: app.now, limit: 10, claimUntil: claimUntil, retireUntil: app.now, keepAfterEnd: 60)
        let condemned = try #require(collected.first?.keys).count
        #expect(condemned >= 2)
        #expect(try app.objectExists(first.movieUrl))
        _ = try redis(app, ["DEL", store.keys.sweepLease])

        // The next holder, well before the claims run out, takes the stream and its keys over.
        app.advance(seconds: 5)
        let taken = try app.sweep()
        #expect(taken.stop == .drained)
        #expect(taken.objectsDeleted == condemned, "the dead sweeper's claimed keys are deleted at once")
        #expect(try !app.objectExists(first.movieUrl))
        #expect(try redis(app, ["ZCARD", store.keys.sweepClaims]).int == 0, "settled streams leave the claims set")
    }

    @Test func anUploadTheSweeperCondemnedCannotBeCommittedEvenByAServerWhoseClockIsBehind() throws {
        let app = try AppHarness()
        let streamer = app.token("s", .streamer, streams: [5])
        let issued = try app.upload(stream: 5, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let record = app.context.store.keys.upload(5, issued.uploadId)
        let fields = try #require(try redis(app, ["HGETALL", record]).array?.compactMap(\.string))
        // The sweeper's clock is past the commit deadline (900 + 300 s); the API's is not.
        let sweeperNow = app.now + 1201
        let collected = try app.context.store.collectGarbage(
            streamIds: [5], now: sweeperNow, limit: 10, claimUntil: sweeperNow + 120, retireUntil: sweeperNow,
            keepAfterEnd: 60)
        #expect(collected.first?.keys.count == 2)
        let body = #"{"streamId":"5","uploadId":"\#(issued.uploadId)"}"#
        let commit = app.send("POST", "/api/preview/commit", token: streamer, json: body)
        #expect(commit.status == 409, "the upload record went with the condemnation: \(commit.text)")

        // A commit that read the record before the sweeper deleted it is refused by the script.
        _ = try redis(app, ["HSET", record] + fields)
        let late = app.send("POST", "/api/preview/commit", token: streamer, json: body)
        #expect(late.status == 409, "\(late.text)")
        #expect(try app.feed().isEmpty)
    }

    @Test func aPublishInterruptedAfterItsScriptIsShownThenExpiresAndIsCollected() throws {
        let app = try AppHarness(failpoints: PreviewStore.Failpoints(afterPublishScript: { throw Injected() }))
        let streamer = app.token("s", .streamer, streams: [3])
        let issued = try app.upload(stream: 3, token: streamer, movie: TestClips.mp4, thumbnail: TestClips.jpeg)
        let commit = app.send(
            "POST", "/api/preview/commit", token: streamer, json: #"{"streamId":"3","uploadId":"\#(issued.uploadId)"}"#)
        #expect(commit.status == 500)

        let shown = try #require(try app.feed().first, "the preview the script published is in the feed")
        #expect(shown.streamId == 3)
        app.advance(seconds: 601)
        try app.sweep()
        #expect(try app.feed().isEmpty)
        app.advance(seconds: 3601)
        try app.sweep()
        #expect(try !app.objectExists(shown.movieUrl) && !app.objectExists(shown.thumbnailUrl))
    }

    @Test func aPreviewTheFeedIndexLostIsRetiredThroughTheSweepQueueAndCollected() throws {
        let app = try AppHarness()
        let item = try app.publish(stream: 8)
        // As if the sweeper's index pass removed the entry between a publisher's index write
        // and its script, and the publisher died before correcting it.
        _ = try redis(app, ["ZREM", app.context.store.keys.live, "8"])
        app.advance(seconds: 1202)
        let report = try app.sweep()
        #expect(report.previewsRemoved == 1)
        #expect(try redis(app, ["EXISTS", app.context.store.keys.preview(8)]).int == 0)
        #expect(try app.objectExists(item.movieUrl), "in its grace period")
        app.advance(seconds: 3601)
        try app.sweep()
        #expect(try !app.objectExists(item.movieUrl) && !app.objectExists(item.thumbnailUrl))
    }

    @Test func aStreamQueuedBeforeItsGarbageIsWrittenStaysQueuedUntilTheWriterHadTimeToWriteIt() throws {
        let app = try AppHarness()
        let store = app.context.store
        // A writer queued stream 9 and has not yet run its script.
        try store.enqueueSweep([(9, app.now)], now: app.now)
        try app.sweep()
        #expect(try queued(app) == ["9"])

        let key = ObjectKeys.movie(streamId: 9, uploadId: String(repeating: "a", count: 32), type: .mp4)
        _ = try redis(app, ["ZADD", store.keys.garbage(9), String(app.now), key])
        app.advance(seconds: SweepSettings().settleSeconds)
        let report = try app.sweep()
        #expect(report.objectsDeleted == 1)
        #expect(try queued(app).isEmpty)
        #expect(try redis(app, ["EXISTS", store.keys.garbage(9), store.keys.deleting(9)]).int == 0)
    }

    @Test func oneRunDrainsEveryBatchThatIsDue() throws {
        var settings = SweepSettings()
        settings.batchStreams = 2
        settings.keysPerStream = 1
        let app = try AppHarness(sweep: settings)
        var replaced: [FeedItem] = []
        for stream in Int64(1)...5 {
            replaced.append(try app.publish(stream: stream))
            try app.publish(stream: stream)
        }
        app.advance(seconds: 3601)
        let report = try app.sweep()
        #expect(report.objectsDeleted == 10)
        #expect(report.stop == .drained)
        #expect(report.seconds > 0, "the run's own duration is reported")
        for item in replaced { #expect(try !app.objectExists(item.movieUrl)) }
    }

    @Test func theSummaryLineNamesEveryCountAndTheSecondsToATenth() {
        var report = Sweeper.Report()
        (report.previewsRemoved, report.objectsDeleted, report.objectsKept, report.failures) = (1, 2, 3, 4)
        report.seconds = 12.34
        #expect(report.summary == "swept previews=1 objects=2 kept=3 failed=4 seconds=12.3 stop=drained")
        report.stop = .leaseHeld
        report.leaseEndsInSeconds = 9.46
        #expect(
            report.summary
                == "swept previews=1 objects=2 kept=3 failed=4 seconds=12.3 stop=lease_held lease_ends_in=9.5")
    }

    @Test func entriesOfTheEarlierObjectIndexAreMovedAndCollectedAndLiveOnesKept() throws {
        let app = try AppHarness()
        let store = app.context.store
        let live = try app.publish(stream: 4)
        let liveKey = try #require(try redis(app, ["HGET", store.keys.preview(4), "movieKey"]).string)
        let gone = ObjectKeys.movie(streamId: 4, uploadId: String(repeating: "b", count: 32), type: .mp4)
        _ = try redis(app, ["ZADD", store.keys.legacyGarbage, String(app.now), liveKey, String(app.now), gone])

        let report = try app.sweep()
        #expect(report.objectsKept == 1)
        #expect(report.objectsDeleted == 1)
        #expect(try redis(app, ["EXISTS", store.keys.legacyGarbage]).int == 0)
        #expect(try app.objectExists(live.movieUrl))
    }

    @Test func infiniteScoresInTheEarlierObjectIndexAreClampedAndNeverTrapTheSweeper() throws {
        let app = try AppHarness()
        let store = app.context.store
        let never = ObjectKeys.movie(streamId: 11, uploadId: String(repeating: "c", count: 32), type: .mp4)
        let now = ObjectKeys.movie(streamId: 12, uploadId: String(repeating: "d", count: 32), type: .mp4)
        // Redis takes infinite scores as they are: what an earlier version or an operator left.
        _ = try redis(app, ["ZADD", store.keys.legacyGarbage, "inf", never, "-inf", now])
        _ = try redis(app, ["ZADD", store.keys.deleting(13), "-inf", "unknown-key", "inf", "other-key"])
        _ = try redis(app, ["ZADD", store.keys.sweepQueue, "-inf", "13"])

        let report = try app.sweep()
        #expect(report.stop == .drained)
        #expect(report.objectsDeleted == 2, "the -inf entries are due now: \(report)")
        #expect(try redis(app, ["EXISTS", store.keys.legacyGarbage]).int == 0, "every entry left the old index")
        #expect(try redis(app, ["ZRANGE", store.keys.garbage(11), "0", "-1"]).array?.compactMap(\.string) == [never])
        let due = try #require(try redis(app, ["ZSCORE", store.keys.sweepQueue, "13"]).string.flatMap(Double.init))
        #expect(due == 0x1p53, "the +inf entry left in stream 13 is looked at never, as an integer time")
        #expect(try app.sweep().stop == .drained, "a second run goes through the same data")
    }

    @Test func aStreamsVersionAndLikersExpireAfterItsLastPreviewAndPersistWhileLive() throws {
        let app = try AppHarness()
        let store = app.context.store
        try app.publish(stream: 6)
        #expect(app.send("POST", "/api/streams/6/like", token: app.token("v", .viewer)).status == 200)
        #expect(
            app.send("DELETE", "/api/preview/6", token: app.token("streamer-6", .streamer, streams: [6])).status == 204)
        for key in [store.keys.version(6), store.keys.likers(6)] {
            #expect(try redis(app, ["TTL", key]).int ?? 0 > 0, "\(key) has an owner: its expiry")
        }
        try app.publish(stream: 6)
        for key in [store.keys.version(6), store.keys.likers(6)] {
            #expect(try redis(app, ["TTL", key]).int == -1, "\(key) belongs to the live preview again")
        }
    }

    @Test func aViewersSeenAndLikedStateIsTrimmedToLiveStreamsAsItGrows() throws {
        let app = try AppHarness()
        let store = app.context.store
        let viewer = app.token("v", .viewer)
        let streams = Array(Int64(1)...Int64(StreamHandlers.trimSlack + 2))
        for stream in streams {
            try app.publish(stream: stream)
            #expect(app.send("POST", "/api/streams/\(stream)/seen", token: viewer).status == 204)
            #expect(app.send("POST", "/api/streams/\(stream)/like", token: viewer).status == 200)
        }
        for stream in streams.dropLast() {
            let owner = app.token("streamer-\(stream)", .streamer, streams: [stream])
            #expect(app.send("DELETE", "/api/preview/\(stream)", token: owner).status == 204)
        }
        let last = try #require(streams.last)
        #expect(app.send("POST", "/api/streams/\(last)/seen", token: viewer).status == 204)
        #expect(app.send("POST", "/api/streams/\(last)/like", token: viewer).status == 200)
        #expect(try redis(app, ["HKEYS", store.keys.seen("v")]).array?.compactMap(\.string) == [String(last)])
        #expect(try redis(app, ["SMEMBERS", store.keys.liked("v")]).array?.compactMap(\.string) == [String(last)])
        #expect(try redis(app, ["TTL", store.keys.liked("v")]).int ?? 0 > 0)
    }
}

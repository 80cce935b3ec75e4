import PreviewCore
import PreviewCrypto
import Testing

/// Random live streams; expiring at random times from 5 to 40 unless `expiringAt` is given.
private func randomLive(count: Int, using random: inout SplitMix64, expiringAt: Int64? = nil) -> [LiveStream] {
    (0..<count).map { index in
        liveStream(
            Int64(index + 1) * 7, updatedAt: Int64.random(in: 1...20, using: &random),
            likes: Int64.random(in: 0...4, using: &random), version: Int64.random(in: 1...3, using: &random),
            expiresAt: expiringAt ?? Int64.random(in: 5...40, using: &random))
    }
}

private func randomViewer(_ live: [LiveStream], using random: inout SplitMix64) -> ViewerState {
    var viewer = ViewerState()
    let seenShare = Int.random(in: 0...10, using: &random)
    for stream in live {
        if Int.random(in: 0..<10, using: &random) < seenShare {
            // Sometimes an older version: seen is per version.
            viewer.seenVersions[stream.preview.streamId] =
                stream.preview.version - Int64.random(in: 0...1, using: &random)
        }
        if Bool.random(using: &random) { viewer.liked.insert(stream.preview.streamId) }
    }
    viewer.seenVersions[999_999] = 1  // seen, but no longer live
    return viewer
}

@Suite struct FeedSnapshotTests {
    @Test func theFeedFollowsThePlayOrderForAnyLiveListViewerCurrentAndLimit() throws {
        var random = SplitMix64(state: 42)
        for round in 0..<250 {
            let live = randomLive(count: Int.random(in: 0...120, using: &random), using: &random)
            let viewer = randomViewer(live, using: &random)
            let current = Bool.random(using: &random) ? live.randomElement(using: &random)?.preview.streamId : 77
            let now = Int64.random(in: 0...20, using: &random)
            let limit = [0, 1, 3, 20, 100].randomElement(using: &random) ?? 20
            let got = try feedSnapshot(live).items(viewer: viewer, current: current, now: now, limit: limit)
            let expected = referencePlayOrder(live: live, viewer: viewer, current: current, now: now, limit: limit)
            #expect(got == expected, "round \(round)")
        }
    }

    @Test func aHistoryAtHandGivesTheSamePlayOrderAsAskingForFlags() throws {
        var random = SplitMix64(state: 43)
        for round in 0..<250 {
            let live = randomLive(count: Int.random(in: 0...120, using: &random), using: &random)
            let viewer = round % 5 == 0 ? ViewerState.anonymous : randomViewer(live, using: &random)
            let current = Bool.random(using: &random) ? live.randomElement(using: &random)?.preview.streamId : 77
            let now = Int64.random(in: 0...20, using: &random)
            let limit = [0, 1, 3, 20, 100].randomElement(using: &random) ?? 20
            let snapshot = feedSnapshot(live)
            let history = ViewerHistory(seen: viewer.seenVersions, liked: viewer.liked)
            let picks = snapshot.playOrder(now: now, limit: limit, current: current, history: history)
            let items = try FeedResponse(json: snapshot.body(picks, format: .json)).items
            let expected = referencePlayOrder(live: live, viewer: viewer, current: current, now: now, limit: limit)
            #expect(items == expected, "round \(round)")
            #expect(picks == snapshot.playOrder(now: now, limit: limit, current: current, flags: viewer.flags))
            let seen = snapshot.seenEntries(history, reusing: nil)
            let withBits = snapshot.playOrder(now: now, limit: limit, current: current, history: history, seen: seen)
            #expect(withBits == picks, "round \(round): SeenEntries give the same order")
        }
    }

    @Test func seenEntriesLastWhileTheSnapshotsHoldTheSamePreviews() throws {
        var random = SplitMix64(state: 17)
        let live = randomLive(count: 200, using: &random, expiringAt: 100)
        var viewer = ViewerState()
        for stream in live.dropLast(2) { viewer.seenVersions[stream.preview.streamId] = stream.preview.version }
        let history = ViewerHistory(seen: viewer.seenVersions, liked: viewer.liked)
        let snapshot = feedSnapshot(live)
        let seen = snapshot.seenEntries(history, reusing: nil)
        let first = live[0].preview
        let liked = try #require(
            snapshot.applying(
                .likes(streamId: first.streamId, count: LikeCount(likes: 50, version: first.version, sequence: 1))))
        #expect(liked.seenEntries(history, reusing: seen) === seen, "a like keeps the membership")
        let reloaded = FeedSnapshot(
            streams: live, signingTime: 0, loadedAtMilliseconds: 1, reusing: liked,
            render: { template($0, signingTime: 0) })
        #expect(reloaded.seenEntries(history, reusing: seen) === seen, "a reload of the same previews keeps it")
        let removed = try #require(snapshot.applying(.removed(streamId: first.streamId, version: first.version)))
        #expect(removed.seenEntries(history, reusing: seen) !== seen, "a removal makes a new one")
        var republished = live
        republished[1] = liveStream(
            live[1].preview.streamId, updatedAt: 30, likes: 0, version: live[1].preview.version + 1, expiresAt: 100)
        let changed = FeedSnapshot(
            streams: republished, signingTime: 0, loadedAtMilliseconds: 2, reusing: snapshot,
            render: { template($0, signingTime: 0) })
        let fresh = changed.seenEntries(history, reusing: seen)
        #expect(fresh !== seen, "a new clip makes a new one")
        // The new clip is unseen: it comes first, then the two never seen.
        let picks = changed.playOrder(now: 0, limit: 3, current: nil, history: history, seen: fresh)
        #expect(
            picks.map(\.streamId)
                == changed.playOrder(now: 0, limit: 3, current: nil, flags: viewer.flags).map(\.streamId))
        #expect(picks.first?.streamId == live[1].preview.streamId && picks.allSatisfy { !$0.seen })
    }

    @Test func theSplicedBodyIsByteEqualToTheEncodedFeedResponseInBothFormats() {
        var random = SplitMix64(state: 7)
        var live = randomLive(count: 30, using: &random)
        live[0] = liveStream(5, updatedAt: 9, likes: 123_456_789, movieURL: "https://x.example/a\"b\\c/é?q=<&>\u{1}")
        live[1] = liveStream(6, updatedAt: 9, likes: -3, movieURL: "https://x.example/\"liked\":false")
        let viewer = ViewerState(seenVersions: [5: 1, 14: 1, 21: 1], liked: [6, 14])
        let snapshot = feedSnapshot(live)
        for limit in [0, 1, 20, 100] {
            let picks = snapshot.playOrder(now: 0, limit: limit, current: 21, flags: viewer.flags)
            let response = FeedResponse(
                items: referencePlayOrder(live: live, viewer: viewer, current: 21, now: 0, limit: limit))
            #expect(snapshot.body(picks, format: .json) == response.jsonBytes())
            #expect(snapshot.body(picks, format: .protobuf) == response.protobufBytes())
        }
    }

    @Test func theEntityTagIsEqualForEqualBodiesAndDiffersWhenAnyByteDiffers() throws {
        var random = SplitMix64(state: 13)
        let live = randomLive(count: 40, using: &random, expiringAt: 100)
        let crypto = OpenSSLCrypto()
        var tagsByBody: [[UInt8]: String] = [:]
        var bodiesByTag: [String: [UInt8]] = [:]
        // Rebuilt snapshots (another process, a reload) must give the same tag for the same body.
        let snapshots = [feedSnapshot(live), feedSnapshot(live.reversed()), feedSnapshot(live, signingTime: 1800)]
        for round in 0..<200 {
            let snapshot = snapshots[round % snapshots.count]
            var viewer = randomViewer(live, using: &random)
            if round % 7 == 0 { viewer = .anonymous }
            let format: WireFormat = round % 2 == 0 ? .json : .protobuf
            let picks = snapshot.playOrder(now: 0, limit: [1, 5, 20][round % 3], current: nil, flags: viewer.flags)
            let (body, tag) = snapshot.answer(picks, format: format, crypto: crypto)
            #expect(tagsByBody[body, default: tag] == tag, "round \(round): one body, two tags")
            #expect(bodiesByTag[tag, default: body] == body, "round \(round): one tag, two bodies")
            tagsByBody[body] = tag
            bodiesByTag[tag] = body
        }
        #expect(bodiesByTag.count > 50)
        let likedMore = try #require(
            snapshots[0].applying(
                .likes(
                    streamId: live[0].preview.streamId,
                    count: LikeCount(likes: 99, version: live[0].preview.version, sequence: 1))))
        let picks = snapshots[0].playOrder(now: 0, limit: 40, current: nil, flags: ViewerState.anonymous.flags)
        let afterLike = likedMore.playOrder(now: 0, limit: 40, current: nil, flags: ViewerState.anonymous.flags)
        #expect(
            snapshots[0].answer(picks, format: .json, crypto: crypto).entityTag
                != likedMore.answer(afterLike, format: .json, crypto: crypto).entityTag)
    }

    @Test func aFeedOfOnlyExpiredPreviewsIsEmptyAndAsksNothing() {
        let live = (1...200).map { liveStream(Int64($0), updatedAt: 1, likes: 0, expiresAt: 10) }
        var asked = 0
        let picks = feedSnapshot(live).playOrder(now: 10, limit: 20, current: 5) { ids in
            asked += ids.count
            return ViewerState.anonymous.flags(ids)
        }
        #expect(picks.isEmpty)
        #expect(asked == 0)
    }

    @Test func aTypicalViewerIsAskedAboutOneBatchOfStreamsNotAboutEveryLiveStream() {
        var random = SplitMix64(state: 3)
        let live = randomLive(count: 5_000, using: &random, expiringAt: 100)
        let viewer = ViewerState(seenVersions: [7: 1, 14: 1, 21: 1])
        var asked: [Int] = []
        _ = feedSnapshot(live).playOrder(now: 0, limit: 20, current: 35) { ids in
            asked.append(ids.count)
            return viewer.flags(ids)
        }
        #expect(asked.count == 1)
        #expect((asked.first ?? .max) <= 2 * 20 + 25)
    }

    @Test func aViewerWhoHasSeenNearlyEverythingIsAskedTwiceAndStillGetsThePlayOrder() throws {
        var random = SplitMix64(state: 5)
        let live = randomLive(count: 300, using: &random, expiringAt: 100)
        var viewer = ViewerState()
        for stream in live.dropLast(3) { viewer.seenVersions[stream.preview.streamId] = stream.preview.version }
        var calls = 0
        let snapshot = feedSnapshot(live)
        let picks = snapshot.playOrder(now: 0, limit: 20, current: nil) { ids in
            calls += 1
            return viewer.flags(ids)
        }
        #expect(calls == 2)
        let items = try FeedResponse(json: snapshot.body(picks, format: .json)).items
        #expect(items == referencePlayOrder(live: live, viewer: viewer, current: nil, now: 0, limit: 20))
    }

    @Test func patchesGiveTheSameFeedAsReadingTheChangedListAgain() throws {
        var random = SplitMix64(state: 11)
        var live = randomLive(count: 60, using: &random)
        var snapshot = feedSnapshot(live)
        for step in 0..<300 {
            let choice = Int.random(in: 0..<10, using: &random)
            let index = Int.random(in: 0..<live.count, using: &random)
            if choice < 6 {
                live[index].likes = Int64.random(in: 0...6, using: &random)
                live[index].likeSequence += 1
                let count = LikeCount(
                    likes: live[index].likes, version: live[index].preview.version,
                    sequence: live[index].likeSequence)
                snapshot = try #require(snapshot.applying(.likes(streamId: live[index].preview.streamId, count: count)))
            } else if choice < 9 {
                var stream = live[index]
                if Bool.random(using: &random) {
                    stream.preview.streamId = Int64(10_000 + step)  // a stream going live
                    live.append(stream)
                } else {
                    stream.preview.version += 1  // a new clip: its like changes are counted afresh
                    stream.likeSequence = 0
                    stream.preview.updatedAt = Int64.random(in: 1...30, using: &random)
                    live[index] = stream
                }
                let patch = FeedSnapshot.Patch.published(
                    stream, template: template(stream), signingTime: 0)
                snapshot = try #require(snapshot.applying(patch))
            } else {
                let removed = live.remove(at: index)
                snapshot = try #require(
                    snapshot.applying(.removed(streamId: removed.preview.streamId, version: removed.preview.version)))
            }
            let viewer = randomViewer(live, using: &random)
            #expect(
                try snapshot.items(viewer: viewer, limit: 100)
                    == referencePlayOrder(live: live, viewer: viewer, current: nil, now: 0, limit: 100),
                "step \(step)")
        }
    }

    @Test func aLikeCountArrivingAfterANewerOneIsIgnored() throws {
        let live = [liveStream(1, updatedAt: 5, likes: 2, version: 3), liveStream(2, updatedAt: 4, likes: 3)]
        var snapshot = feedSnapshot(live)
        for (likes, version, sequence) in [(5, 3, 2), (4, 3, 1), (9, 2, 7), (8, 4, 1), (5, 3, 2)]
            as [(Int64, Int64, Int64)]
        {
            snapshot = try #require(
                snapshot.applying(
                    .likes(streamId: 1, count: LikeCount(likes: likes, version: version, sequence: sequence))))
        }
        // Only (5, 3, 2) is of the live version and newer than what was read; it moves stream 1 ahead.
        #expect(snapshot.likes(streamId: 1) == 5)
        let seenOrder = try snapshot.items(viewer: ViewerState(seenVersions: [1: 3, 2: 1])).map(\.streamId)
        #expect(seenOrder == [1, 2])
    }

    @Test func anOlderPublishIsIgnoredAndOneOfAnotherWindowAsksForAReload() throws {
        let live = [liveStream(1, updatedAt: 5, likes: 0, version: 3)]
        let snapshot = feedSnapshot(live)
        var older = live[0]
        older.preview.version = 2
        older.preview.updatedAt = 9
        let stale = try #require(
            snapshot.applying(.published(older, template: template(older), signingTime: 0)))
        #expect(try stale.items(viewer: .anonymous).map(\.updatedAt) == [5])
        var newer = live[0]
        newer.preview.version = 4
        #expect(
            snapshot.applying(.published(newer, template: template(newer), signingTime: 1800))
                == nil)
    }

    @Test func aReloadReusesTheRenderedItemsOfUnchangedPreviewsInTheSameWindowOnly() {
        let live = [liveStream(1, updatedAt: 5, likes: 0), liveStream(2, updatedAt: 6, likes: 1)]
        let first = feedSnapshot(live)
        var changed = live
        changed[1].preview.version = 2
        changed[0].likes = 9  // a like count is not part of the rendered item
        var rendered: [Int64] = []
        _ = FeedSnapshot(streams: changed, signingTime: 0, loadedAtMilliseconds: 1, reusing: first) {
            rendered.append($0.preview.streamId)
            return template($0)
        }
        #expect(rendered == [2])
        rendered = []
        _ = FeedSnapshot(streams: changed, signingTime: 1800, loadedAtMilliseconds: 1, reusing: first) {
            rendered.append($0.preview.streamId)
            return template($0, signingTime: 1800)
        }
        #expect(rendered == [1, 2])
    }
}

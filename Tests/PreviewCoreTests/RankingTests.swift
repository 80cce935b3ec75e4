import PreviewCore
import Testing

private func stream(_ id: Int64, updatedAt: Int64, likes: Int64, version: Int64 = 1, expiresAt: Int64 = 10_000)
    -> LiveStream
{
    liveStream(id, updatedAt: updatedAt, likes: likes, version: version, expiresAt: expiresAt)
}

/// The play order as the feed computes it, from the shared snapshot.
private enum Ranking {
    static func playOrder(live: [LiveStream], viewer: ViewerState, current: Int64?, now: Int64, limit: Int)
        -> [FeedPick]
    {
        feedSnapshot(live).playOrder(now: now, limit: limit, current: current, flags: viewer.flags)
    }
}

private func order(_ ranked: [FeedPick]) -> [Int64] { ranked.map(\.streamId) }

@Suite struct RankingTests {
    let live = [
        stream(1, updatedAt: 100, likes: 5), stream(2, updatedAt: 300, likes: 0), stream(3, updatedAt: 200, likes: 9),
        stream(4, updatedAt: 300, likes: 2), stream(5, updatedAt: 50, likes: 9),
    ]

    @Test func unseenStreamsComeNewestFirstThenByLikesThenByID() {
        let ranked = Ranking.playOrder(live: live, viewer: .anonymous, current: nil, now: 0, limit: 20)
        #expect(order(ranked) == [4, 2, 3, 1, 5])
        #expect(ranked.allSatisfy { !$0.seen && !$0.liked })
    }

    @Test func seenStreamsFollowByLikesThenNewestThenID() {
        let viewer = ViewerState(seenVersions: [1: 1, 3: 1, 5: 1], liked: [3])
        let ranked = Ranking.playOrder(live: live, viewer: viewer, current: nil, now: 0, limit: 20)
        // unseen: 4 (300, 2 likes) before 2 (300, 0 likes); seen: 3 and 5 tie on likes, 3 is newer.
        #expect(order(ranked) == [4, 2, 3, 5, 1])
        #expect(ranked.map(\.seen) == [false, false, true, true, true])
        #expect(ranked.map(\.liked) == [false, false, true, false, false])
    }

    @Test func equalStreamsAreOrderedByStreamID() {
        let ties = [
            stream(9, updatedAt: 1, likes: 1), stream(7, updatedAt: 1, likes: 1), stream(8, updatedAt: 1, likes: 1),
        ]
        #expect(order(Ranking.playOrder(live: ties, viewer: .anonymous, current: nil, now: 0, limit: 5)) == [7, 8, 9])
        let seen = ViewerState(seenVersions: [7: 1, 8: 1, 9: 1])
        #expect(order(Ranking.playOrder(live: ties, viewer: seen, current: nil, now: 0, limit: 5)) == [7, 8, 9])
    }

    @Test func aNewVersionMakesASeenStreamUnseenAgain() {
        let viewer = ViewerState(seenVersions: [3: 1])
        let updated = [stream(3, updatedAt: 400, likes: 9, version: 2), stream(1, updatedAt: 100, likes: 5)]
        let ranked = Ranking.playOrder(live: updated, viewer: viewer, current: nil, now: 0, limit: 5)
        #expect(ranked.first?.seen == false)
        #expect(order(ranked) == [3, 1])
    }

    @Test func theCurrentStreamStaysAtTheHeadWhileLive() {
        let viewer = ViewerState(seenVersions: [5: 1])
        let ranked = Ranking.playOrder(live: live, viewer: viewer, current: 5, now: 0, limit: 3)
        #expect(order(ranked) == [5, 4, 2])
        let gone = Ranking.playOrder(live: live, viewer: viewer, current: 77, now: 0, limit: 3)
        #expect(order(gone) == [4, 2, 3])
    }

    @Test func expiredPreviewsAreLeftOut() {
        let mixed = [
            stream(1, updatedAt: 1, likes: 0, expiresAt: 50), stream(2, updatedAt: 1, likes: 0, expiresAt: 51),
        ]
        #expect(order(Ranking.playOrder(live: mixed, viewer: .anonymous, current: 1, now: 50, limit: 5)) == [2])
    }

    @Test func theLimitCutsTheList() {
        #expect(Ranking.playOrder(live: live, viewer: .anonymous, current: nil, now: 0, limit: 2).count == 2)
        #expect(Ranking.playOrder(live: live, viewer: .anonymous, current: nil, now: 0, limit: 0).isEmpty)
    }
}

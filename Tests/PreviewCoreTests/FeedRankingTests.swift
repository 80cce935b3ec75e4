import PreviewCore
import Testing

/// `--rank-by opens`: seen previews ordered by open score, with the prior that keeps a lucky
/// first view from jumping the queue; the default (likes) ignores the scores.
@Suite("Feed ranking by opens")
struct FeedRankingTests {
    @Test(
        "The open score's prior: 1 open of 1 view ranks below 20 of 200, above 2 of 200; nothing seen scores the prior")
    func prior() {
        let lucky = FeedRanking.openScore(opens: 1, distinctImpressions: 1)
        let good = FeedRanking.openScore(opens: 20, distinctImpressions: 200)
        let dull = FeedRanking.openScore(opens: 2, distinctImpressions: 200)
        #expect(good > lucky)
        #expect(lucky > dull)
        #expect(FeedRanking.openScore(opens: 0, distinctImpressions: 0) == FeedRanking.priorRate)
        #expect(LiveStream(preview: liveStream(1, updatedAt: 1, likes: 0).preview, likes: 0).openScore == 0.05)
        // The estimate of distinct viewers may fall below the opens: never a rate above the opens'.
        #expect(
            FeedRanking.openScore(opens: 5, distinctImpressions: 3)
                == FeedRanking.openScore(opens: 5, distinctImpressions: 5))
    }

    @Test("Seen streams rank by open score, then likes; by likes, the scores change nothing; patches keep both")
    func seenOrder() throws {
        var live = [
            liveStream(1, updatedAt: 10, likes: 5), liveStream(2, updatedAt: 10, likes: 0),
            liveStream(3, updatedAt: 10, likes: 1),
        ]
        live[0].openScore = 0.01
        live[1].openScore = 0.2
        live[2].openScore = 0.05
        let viewer = ViewerState(seenVersions: [1: 1, 2: 1, 3: 1, 4: 1])
        let byLikes = snapshot(live, .likes)
        #expect(try byLikes.items(viewer: viewer).map(\.streamId) == [1, 3, 2])
        let byOpens = snapshot(live, .opens)
        #expect(try byOpens.items(viewer: viewer).map(\.streamId) == [2, 3, 1])

        // A new stream published starts at the prior: between 2 (0.2) and 1 (0.01), ahead of 3
        // (same score) by its like.
        var new = liveStream(4, updatedAt: 11, likes: 2)
        new.openScore = FeedRanking.priorRate
        let published = try #require(
            byOpens.applying(.published(new, template: template(new), signingTime: 0)))
        #expect(try published.items(viewer: viewer).map(\.streamId) == [2, 4, 3, 1])
        // Likes order streams of one score: 3 passes 4 with 3 likes.
        let liked = try #require(
            published.applying(.likes(streamId: 3, count: LikeCount(likes: 3, version: 1, sequence: 1))))
        #expect(try liked.items(viewer: viewer).map(\.streamId) == [2, 3, 4, 1])
        // Unseen streams still come first, newest first, whatever their score.
        #expect(try liked.items(viewer: ViewerState(seenVersions: [2: 1, 3: 1])).map(\.streamId) == [4, 1, 2, 3])
    }

    private func snapshot(_ live: [LiveStream], _ ranking: FeedRanking) -> FeedSnapshot {
        FeedSnapshot(streams: live, signingTime: 0, loadedAtMilliseconds: 0, reusing: nil, ranking: ranking) {
            template($0)
        }
    }
}

import StreamPreviewClient
import Testing

/// The strip model: play order, the playing index, round robin, skips, centring and live events.
@Suite("Live preview strip model")
struct LivePreviewStripTests {
    func item(_ id: Int64, version: Int64 = 1, likes: Int64 = 0, liked: Bool = false, seen: Bool = false) -> FeedItem {
        FeedItem(
            streamId: id, movieUrl: "https://cdn.example/\(id)/\(version).mp4", likes: likes, liked: liked, seen: seen,
            previewVersion: version)
    }

    @Test("The feed's order is the play order, and the first clip plays at index 0")
    func playOrder() {
        let strip = LivePreviewStrip(items: [item(7), item(3), item(9)])
        #expect(strip.items.map(\.streamId) == [7, 3, 9])
        #expect(strip.currentPlayIndex == 0)
        #expect(strip.playing?.streamId == 7)
        #expect(LivePreviewStrip().currentPlayIndex == nil)
    }

    @Test("A clip played to its end advances round robin, wrapping, and is marked seen once")
    func roundRobin() {
        var strip = LivePreviewStrip(items: [item(1), item(2), item(3)])
        var order: [Int?] = []
        var marked: [Int64?] = []
        for _ in 0..<4 {
            marked.append(strip.playedToEnd(stream: strip.playing?.streamId ?? 0))
            order.append(strip.currentPlayIndex)
        }
        #expect(order == [1, 2, 0, 1])
        #expect(marked == [1, 2, 3, nil], "a clip already seen is not marked again")
        #expect(strip.items.allSatisfy { $0.seen })
        #expect(strip.playedToEnd(stream: 3) == nil, "an end reported for a clip no longer playing is ignored")
        #expect(strip.currentPlayIndex == 1)
    }

    @Test("A stalled or failed clip is skipped; a lone clip plays again")
    func skip() {
        var strip = LivePreviewStrip(items: [item(1), item(2)])
        strip.skip(stream: 1)
        #expect(strip.playing?.streamId == 2)
        #expect(strip.items.allSatisfy { !$0.seen }, "a skipped clip is not seen")
        strip.skip(stream: 1)
        #expect(strip.playing?.streamId == 2, "a skip of a clip that no longer plays changes nothing")
        var alone = LivePreviewStrip(items: [item(5)])
        let before = alone.playing
        alone.skip(stream: 5)
        #expect(alone.currentPlayIndex == 0)
        #expect(alone.playing != before && alone.playing?.turn == (before?.turn ?? 0) + 1, "another turn of it")
    }

    @Test("A new preview is appended and a newer version updated in place, without interrupting the clip")
    func previewEvents() {
        var strip = LivePreviewStrip(items: [item(1, liked: true, seen: true), item(2)])
        #expect(strip.apply(.preview(item(3))) == .none)
        #expect(strip.items.map(\.streamId) == [1, 2, 3])
        strip.apply(.preview(item(1, version: 2, likes: 4)))
        #expect(strip.playing?.previewVersion == 1 && strip.playing?.movieUrl == item(1).movieUrl)
        #expect(strip.items[0].previewVersion == 2 && strip.items[0].likes == 4)
        #expect(strip.items[0].liked && !strip.items[0].seen, "the like stays; a new version is unseen")
        strip.apply(.preview(item(1, version: 1, likes: 5)))
        #expect(strip.items[0].previewVersion == 2 && strip.items[0].likes == 5, "an older version: count only")
        #expect(strip.playedToEnd(stream: 1) == nil, "version 1 played; version 2 is not marked seen by it")
        #expect(strip.currentPlayIndex == 1)
    }

    @Test("Likes update the count; removing the playing stream plays its successor; reset asks for a reload")
    func removedLikesReset() {
        var strip = LivePreviewStrip(items: [item(1), item(2), item(3)])
        strip.apply(.likes(streamId: 2, likes: 9))
        #expect(strip.items[1].likes == 9)
        strip.apply(.removed(streamId: 2, previewVersion: 1))
        #expect(strip.items.map(\.streamId) == [1, 3] && strip.playing?.streamId == 1 && strip.currentPlayIndex == 0)
        strip.apply(.removed(streamId: 1, previewVersion: 1))
        #expect(strip.playing?.streamId == 3 && strip.currentPlayIndex == 0)
        strip.apply(.removed(streamId: 3, previewVersion: 0))
        #expect(strip.items.count == 1, "a removal of an older version than the one shown is ignored")
        strip.apply(.removed(streamId: 3, previewVersion: 1))
        #expect(strip.items.isEmpty && strip.playing == nil && strip.currentPlayIndex == nil)
        #expect(strip.apply(.reset) == .reloadFeed)
        strip.apply(.preview(item(4)))
        #expect(strip.playing?.streamId == 4, "the first clip into an empty strip plays")
    }

    @Test("Loading a feed keeps the playing clip while live, else plays the next one still live")
    func load() {
        var strip = LivePreviewStrip(items: [item(1), item(2), item(3), item(4)])
        strip.play(stream: 2)
        strip.load([item(4), item(2, version: 2), item(1)])
        #expect(strip.items.map(\.streamId) == [4, 2, 1])
        #expect(strip.playing?.previewVersion == 1 && strip.currentPlayIndex == 1, "the clip goes on, re-centred")
        strip.load([item(1), item(4)])
        #expect(strip.playing?.streamId == 1, "2 ended: after it in the old order [4, 2, 1] comes 1")
        strip.load([item(7)])
        #expect(strip.playing?.streamId == 7)
        strip.setLike(stream: 7, LikeState(likes: 3, liked: true))
        #expect(strip.items[0].likes == 3 && strip.items[0].liked)
    }
}

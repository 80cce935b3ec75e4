import PreviewCore
import PreviewCrypto

/// What one viewer has seen (stream ID → preview version) and liked, as the tests state it.
struct ViewerState {
    var seenVersions: [Int64: Int64] = [:]
    var liked: Set<Int64> = []

    static let anonymous = ViewerState()

    func flags(_ streamIds: [Int64]) -> [ViewerFlags] {
        streamIds.map { ViewerFlags(seenVersion: seenVersions[$0], liked: liked.contains($0)) }
    }
}

func liveStream(
    _ id: Int64, updatedAt: Int64, likes: Int64, version: Int64 = 1, expiresAt: Int64 = 10_000,
    movieURL: String? = nil
) -> LiveStream {
    LiveStream(
        preview: PreviewRecord(
            streamId: id, version: version, uploadId: String(repeating: "a", count: 32), movieKey: "m\(id)",
            thumbnailKey: "t\(id)", movieType: .mp4, thumbnailType: .jpeg, movieBytes: 1, thumbnailBytes: 1,
            movieURL: movieURL, updatedAt: updatedAt, expiresAt: expiresAt),
        likes: likes)
}

/// The item a feed shows for `stream`, with URLs that depend on the signing time only.
func renderedItem(_ stream: LiveStream, signingTime: Int64 = 0) -> FeedItem {
    let preview = stream.preview
    return FeedItem(
        streamId: preview.streamId,
        movieUrl: preview.movieURL ?? "https://cdn.example/\(preview.movieKey)?t=\(signingTime)",
        thumbnailUrl: "https://cdn.example/\(preview.thumbnailKey)?t=\(signingTime)", likes: stream.likes,
        previewVersion: preview.version, updatedAt: preview.updatedAt, expiresAt: preview.expiresAt,
        durationMs: 1500, width: 640, height: 360, fastStart: preview.streamId % 2 == 0)
}

func template(_ stream: LiveStream, signingTime: Int64 = 0) -> FeedItemTemplate {
    FeedItemTemplate(renderedItem(stream, signingTime: signingTime), crypto: OpenSSLCrypto())
}

func feedSnapshot(_ live: [LiveStream], signingTime: Int64 = 0) -> FeedSnapshot {
    FeedSnapshot(streams: live, signingTime: signingTime, loadedAtMilliseconds: 0, reusing: nil) {
        template($0, signingTime: signingTime)
    }
}

/// The play order as the design states it, by brute force: the oracle of `FeedSnapshot.playOrder`.
func referencePlayOrder(live: [LiveStream], viewer: ViewerState, current: Int64?, now: Int64, limit: Int)
    -> [FeedItem]
{
    var unseen: [FeedItem] = []
    var seen: [FeedItem] = []
    for stream in live where stream.preview.expiresAt > now {
        var item = renderedItem(stream)
        item.seen = viewer.seenVersions[stream.preview.streamId] == stream.preview.version
        item.liked = viewer.liked.contains(stream.preview.streamId)
        if item.seen { seen.append(item) } else { unseen.append(item) }
    }
    unseen.sort { x, y in
        if x.updatedAt != y.updatedAt { return x.updatedAt > y.updatedAt }
        if x.likes != y.likes { return x.likes > y.likes }
        return x.streamId < y.streamId
    }
    seen.sort { x, y in
        if x.likes != y.likes { return x.likes > y.likes }
        if x.updatedAt != y.updatedAt { return x.updatedAt > y.updatedAt }
        return x.streamId < y.streamId
    }
    var ordered = unseen + seen
    if let current, let index = ordered.firstIndex(where: { $0.streamId == current }) {
        ordered.insert(ordered.remove(at: index), at: 0)
    }
    return Array(ordered.prefix(max(0, limit)))
}

extension FeedSnapshot {
    /// The viewer's feed decoded back into items (through the JSON the server sends).
    func items(viewer: ViewerState, current: Int64? = nil, now: Int64 = 0, limit: Int = 20) throws -> [FeedItem] {
        let picks = playOrder(now: now, limit: limit, current: current, flags: viewer.flags)
        return try FeedResponse(json: body(picks, format: .json)).items
    }

    /// The body `answer` gives, for tests that look only at the bytes.
    func body(_ picks: [FeedPick], format: WireFormat) -> [UInt8] {
        answer(picks, format: format, crypto: OpenSSLCrypto()).body
    }
}

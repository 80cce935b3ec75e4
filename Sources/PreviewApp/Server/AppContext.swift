import PreviewCore
import PreviewCrypto
import PreviewRedis

/// Everything the handlers share, built once by `serve`.
struct AppContext: Sendable {
    let store: PreviewStore
    let storage: any ObjectStorage
    /// The embedded store, when objects are served by this process.
    let localStore: LocalObjectStore?
    let policy: UploadPolicy
    /// What commit does with a clip that is not fast-start (`--fast-start`).
    let fastStart: FastStartPolicy
    let authenticator: Authenticator
    let liveCache: LiveListCache
    let crypto: OpenSSLCrypto
    /// How long a GET URL handed out works: replaced objects are kept this long.
    let urlLifetime: Int64
    let seenTTL: Int64
    let publicBaseURL: String?
    let nowMilliseconds: @Sendable () -> Int64

    var now: Int64 { nowMilliseconds() / 1000 }

    /// The feed item of a live stream for one viewer; URLs minted now.
    func feedItem(_ stream: LiveStream, seen: Bool, liked: Bool, now: Int64) throws -> FeedItem {
        let preview = stream.preview
        return FeedItem(
            streamId: preview.streamId,
            movieUrl: try preview.movieURL ?? storage.downloadURL(key: preview.movieKey, now: now),
            thumbnailUrl: try preview.thumbnailURL ?? storage.downloadURL(key: preview.thumbnailKey, now: now),
            likes: stream.likes, liked: liked, seen: seen, previewVersion: preview.version,
            updatedAt: preview.updatedAt, expiresAt: preview.expiresAt, durationMs: preview.durationMs,
            width: preview.width, height: preview.height, fastStart: preview.fastStart)
    }

    /// The plain URL of an object on the public base, when one is configured.
    func publicURL(of key: String) -> String? {
        publicBaseURL.map { $0 + "/" + ObjectPath.encode(key) }
    }
}

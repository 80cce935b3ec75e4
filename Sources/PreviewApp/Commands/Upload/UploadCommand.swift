import Foundation
import PreviewCore
import PreviewServer
import StreamPreviewClient

/// `streampreview upload`: the app package's uploader over libcurl (`PreviewUploader`),
/// then prints the published item on stdout; progress and retry notes go to stderr. The item's
/// JSON has its labels and URLs from the server, so it is escaped like any text for a terminal
/// (equal JSON: only `\uXXXX` escapes are added inside strings).
enum UploadCommand {
    static func run(_ options: UploadOptions) throws -> ExitCode {
        var uploader = PreviewUploader(options: options.uploader, transport: try CurlTransport())
        uploader.retry.maxAttempts = options.transfer.retries + 1
        uploader.progress = UploadProgressReporter(
            mode: options.transfer.reporterMode(
                standardErrorIsTerminal: TerminalSize.standardErrorIsTerminal(
                    environment: ProcessInfo.processInfo.environment)))
        let configured = uploader
        let published = try Blocking.run {
            try await configured.publish(moviePath: options.moviePath, thumbnailPath: options.thumbnailPath)
        }
        print(TerminalText.escaped(String(decoding: PreviewCore.FeedItem(published.item).jsonBytes(), as: UTF8.self)))
        return .ok
    }
}

extension PreviewCore.FeedItem {
    /// The package's item as the server's wire type, to print it as the server wrote it.
    init(_ item: ClientFeedItem) {
        self.init(
            streamId: item.streamId, movieUrl: item.movieUrl, thumbnailUrl: item.thumbnailUrl, likes: item.likes,
            liked: item.liked, seen: item.seen, previewVersion: item.previewVersion, updatedAt: item.updatedAt,
            expiresAt: item.expiresAt, durationMs: item.durationMs, width: item.width, height: item.height,
            fastStart: item.fastStart, labels: item.labels, stale: item.stale, shareUrl: item.shareUrl,
            downloadUrl: item.downloadUrl)
    }
}

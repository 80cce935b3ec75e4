import Foundation
import PreviewCore
import PreviewHTTPClient

/// `streampreview upload`: the whole uploader flow over HTTP with libcurl (`PreviewUploader`),
/// then prints the published item on stdout; progress and retry notes go to stderr. The item's
/// JSON has its labels and URLs from the server, so it is escaped like any text for a terminal
/// (equal JSON: only `\uXXXX` escapes are added inside strings).
enum UploadCommand {
    static func run(_ options: UploadOptions) throws -> ExitCode {
        let client = try HTTPClient()
        let api = options.uploader
        var uploader = PreviewUploader(
            client: client,
            api: APIClient(client: client, server: api.server, token: try api.loadToken(), format: api.format))
        uploader.retry.policy.maxAttempts = options.transfer.retries + 1
        uploader.progress = UploadProgressReporter(
            mode: options.transfer.reporterMode(
                standardErrorIsTerminal: TerminalSize.standardErrorIsTerminal(
                    environment: ProcessInfo.processInfo.environment)))
        let published = try uploader.publish(
            streamId: api.streamId, moviePath: options.moviePath, thumbnailPath: options.thumbnailPath)
        print(TerminalText.escaped(String(decoding: published.item.jsonBytes(), as: UTF8.self)))
        return .ok
    }
}

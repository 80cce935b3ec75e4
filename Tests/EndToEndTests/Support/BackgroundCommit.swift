import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewTestSupport
import Synchronization

/// A commit sent on a thread and an HTTP client of its own, so the test goes on while it waits
/// (on the moderation hook, say); its reply is read once it came.
final class BackgroundCommit: Sendable {
    private let outcome = Mutex<Result<Reply, any Error>?>(nil)

    init(baseURL: String, streamId: Int64, uploadId: String, token: String) {
        Thread.detachNewThread { [self] in
            var request = HTTPClientRequest(
                method: "POST", url: baseURL + "/api/preview/commit",
                body: .bytes(StreamPreviewCommitRequest(streamId: streamId, uploadId: uploadId).jsonBytes()))
            request.headers.add("Content-Type", "application/json")
            request.headers.add("Authorization", "Bearer \(token)")
            request.timeoutSeconds = 120
            let result = Result {
                let response = try HTTPClient().send(request)
                return Reply(status: response.status, headers: response.headers, body: response.body)
            }
            self.outcome.withLock { $0 = result }
        }
    }

    /// The reply once it came (nil until then); a failed exchange throws.
    var reply: Reply? {
        get throws { try outcome.withLock { $0 }?.get() }
    }

    /// Whether the reply (or a failed exchange) has come.
    var isDone: Bool { outcome.withLock { $0 != nil } }

    /// The reply, waiting up to `seconds` for it.
    func wait(within seconds: Int = 120) throws -> Reply? {
        _ = eventually(within: seconds) { isDone }
        return try reply
    }
}

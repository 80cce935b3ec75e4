import Foundation
import PreviewCore
import PreviewHTTPClient
import PreviewServer
import StreamPreviewClient
import Synchronization

/// The app package's transport over libcurl, for `upload` and `capture`: the binary links
/// libcurl for the object stores anyway, and it gives what FoundationNetworking's URLSession on
/// Linux does not: one limit on a whole attempt with connect included (URLSession's
/// `timeoutInterval` is an idle limit, so a PUT trickling bytes never times out), a reset told
/// apart from other broken transfers, and no second HTTP stack in the binary. Retries, progress
/// and errors are the package's (`StreamPreviewClient`), as in any app.
///
/// One exchange at a time (the uploader sends one request after another); each runs on a thread
/// of its own, as libcurl blocks.
final class CurlTransport: StreamPreviewTransport {
    private let client: Mutex<HTTPClient>

    init() throws {
        client = Mutex(try HTTPClient())
    }

    func send(_ request: TransportRequest, onSent: (@Sendable (Int64, Int64) -> Void)?) async throws
        -> TransportResponse
    {
        var curlRequest = HTTPClientRequest(
            method: request.method, url: request.url.absoluteString,
            body: request.bodyFile.map { .file(path: $0.path) } ?? request.body.map { .bytes(Array($0)) } ?? .none)
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) { curlRequest.headers.add(name, value) }
        if let timeout = request.timeout { curlRequest.timeoutSeconds = timeout }
        curlRequest.uploadProgress = onSent
        let prepared = curlRequest
        let result: Result<HTTPClientResponse, any Error> = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(returning: self.client.withLock { client in Result { try client.send(prepared) } })
            }
        }
        switch result {
        case .success(let response):
            var headers: [String: String] = [:]
            for field in response.headers {
                headers[field.name] = headers[field.name].map { $0 + ", " + field.value } ?? field.value
            }
            return TransportResponse(status: response.status, headers: headers, body: Data(response.body))
        case .failure(let error as HTTPClientError):
            throw TransportError(error, timeoutSeconds: prepared.timeoutSeconds)
        case .failure(let error):
            throw TransportError(.fatal, String(describing: error))
        }
    }
}

extension TransportError {
    /// How a libcurl exchange broke, in a few words: `no answer within 120.0 s`, `connection reset`.
    init(_ error: HTTPClientError, timeoutSeconds: Double) {
        switch error.kind {
        case .timeout: self.init(.timeout, "no answer within \(UploadMessages.seconds(timeoutSeconds)) s")
        case .connect: self.init(.connect, error.message)
        case .transfer where error.message.localizedCaseInsensitiveContains("reset by peer"):
            self.init(.transfer, "connection reset")
        case .transfer: self.init(.transfer, error.message)
        case .invalidURL, .invalidRequest, .file: self.init(.fatal, error.message)
        }
    }
}

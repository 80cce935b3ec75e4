import Foundation
import PreviewCore
import PreviewHTTPClient

extension PreviewUploader {
    /// PUTs `file` to its signed URL with the headers the server named, showing progress, and
    /// sends it again from the file's first byte (each attempt reopens it) while `UploadRetry`
    /// allows and the URL (expiring at `expiresAt`, Unix seconds) lives.
    func put(url: String, headers: [String: String], file: String, expiresAt: Int64) throws {
        let name = (file as NSString).lastPathComponent
        let size = try Self.fileSize(file)
        var request = HTTPClientRequest(method: "PUT", url: url, body: .file(path: file))
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request.headers.add(name, value) }
        request.timeoutSeconds = putTimeoutSeconds
        let progress = self.progress
        request.uploadProgress = { sent, _ in progress.update(sent: sent) }
        let exchange = RetryingExchange(
            rules: retry, request: .put, label: "PUT of \(name)", timing: timing, reporter: progress,
            expiresAt: expiresAt, timeoutSeconds: putTimeoutSeconds)
        let result = try exchange.run { attempt in
            progress.begin(name: name, total: size, attempt: attempt)
            return try client.send(request)
        }
        if case .succeeded = result { progress.finish() }
    }

    /// POSTs `message` to the API route `path` and decodes the answer, sending it again as
    /// `UploadRetry`'s rules for `request` (post or commit) allow.
    func call<Response: WireMessage>(
        _ path: String, as request: UploadRetry.Request, _ message: some WireMessage
    ) throws -> Response {
        let httpRequest = api.request(path, message)
        let exchange = RetryingExchange(
            rules: retry, request: request, label: "POST \(path)", timing: timing, reporter: progress,
            expiresAt: nil, timeoutSeconds: httpRequest.timeoutSeconds)
        guard case .succeeded(let response) = try exchange.run({ _ in try api.client.send(httpRequest) }) else {
            throw AppError("POST \(path): the answer was not a success")  // only PUTs are stored earlier
        }
        guard response.status == 200 else {
            throw AppError("POST \(path) failed: \(response.status) \(APIClient.describe(response))")
        }
        return try api.decode(response)
    }
}

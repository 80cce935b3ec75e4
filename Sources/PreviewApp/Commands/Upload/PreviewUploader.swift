import Foundation
import PreviewCore
import PreviewServer
import StreamPreviewClient
import Synchronization

/// The uploader of `upload` and `capture`: the app package's (`StreamPreviewClient`: ask for
/// signed URLs, PUT the clip and the thumbnail, commit, retried by `UploadRetryPolicy`) over
/// libcurl (`CurlTransport`). This file only adapts it to a command line: its events go to an
/// `UploadProgressReporter`, and its errors become the command's lines and exit codes
/// (`UploadMessages`). The commands block on these calls from their own thread (`Blocking`).
struct PreviewUploader {
    let options: UploaderOptions
    let transport: CurlTransport
    /// When to send a request again (`--retries` sets `maxAttempts`; PUT attempts time out after
    /// `putTimeout`).
    var retry = UploadRetryPolicy()
    /// Where progress and retry notes go; silent unless the command picks a mode.
    var progress = UploadProgressReporter.silent
    /// The waits and clocks of retries (tests make them instant).
    var clock = RetryClock(
        sleep: RetryClock.system.sleep, random: RetryClock.system.random,
        monotonic: UploadProgressReporter.monotonicSeconds,
        // The test clock in debug builds, as the server's: a URL's expiry is the server's time.
        now: { Double(WallClock.nowMilliseconds()) / 1000 })

    init(options: UploaderOptions, transport: CurlTransport) {
        self.options = options
        self.transport = transport
    }

    /// What one publish did: the upload the server issued and the feed item it published.
    typealias Published = UploadResult

    func publish(moviePath: String, thumbnailPath: String) async throws -> Published {
        // Checked here for the usage exit code; the package checks the same again.
        _ = try Self.mediaType(of: moviePath, allowed: MediaType.clipTypes)
        _ = try Self.mediaType(of: thumbnailPath, allowed: MediaType.imageTypes)
        _ = try Self.fileSize(moviePath)
        _ = try Self.fileSize(thumbnailPath)
        let client = try client(token: try options.loadToken())
        let events = reporting(names: [
            .clip: (moviePath as NSString).lastPathComponent, .still: (thumbnailPath as NSString).lastPathComponent,
        ])
        return try await reportingFailure {
            try await client.upload(
                stream: options.streamId, clip: URL(fileURLWithPath: moviePath),
                still: URL(fileURLWithPath: thumbnailPath), details: options.details, onEvent: events)
        }
    }

    /// PUTs `file` to its signed URL with the headers the server named, as `publish` does.
    func put(url: String, headers: [String: String], file: String, expiresAt: Int64) async throws {
        guard let target = URL(string: url) else { throw AppError("bad upload URL \(url)") }
        let client = try client(token: "")
        let events = reporting(names: [.clip: (file as NSString).lastPathComponent])
        try await reportingFailure {
            try await client.put(
                SignedPut(url: target, headers: headers, file: URL(fileURLWithPath: file)), as: .clip,
                expiresAt: expiresAt, onEvent: events)
        }
    }

    private func client(token: String) throws -> StreamPreviewClient {
        guard let server = URL(string: options.server) else { throw AppError("bad server URL \(options.server)") }
        return StreamPreviewClient(
            baseURL: server, token: { token }, retry: retry, encoding: options.format == .json ? .json : .protobuf,
            transport: transport, clock: clock)
    }

    /// The package's events as the reporter shows them: a bar or lines per file, a line per retry.
    private func reporting(names: [UploadFile: String]) -> @Sendable (UploadEvent) -> Void {
        let progress = self.progress
        let maxAttempts = retry.maxAttempts
        let storedEarlier = StoredEarlier()
        return { event in
            switch event {
            case .started(let file, let total, let attempt):
                progress.begin(name: names[file] ?? file.rawValue, total: total, attempt: attempt)
            case .progress(_, let sent, _):
                progress.update(sent: sent)
            case .storedByEarlierAttempt(let file, let answer):
                storedEarlier.files.withLock { _ = $0.insert(file) }
                progress.note(UploadMessages.storedEarlier(answer))
            case .stored(let file):
                // A file an earlier attempt stored has no bar or line to end.
                if !storedEarlier.files.withLock({ $0.contains(file) }) { progress.finish() }
            case .retrying(_, let wait, let error):
                progress.note(UploadMessages.retrying(error, after: wait, maxAttempts: maxAttempts))
            }
        }
    }

    private final class StoredEarlier: Sendable {
        let files = Mutex<Set<UploadFile>>([])
    }

    /// Runs the package's call; its error becomes the command's (`UploadMessages.failure`).
    private func reportingFailure<Value>(_ call: () async throws -> Value) async throws -> Value {
        do {
            return try await call()
        } catch let error as StreamPreviewClientError {
            progress.endLine()
            throw UploadMessages.failure(error)
        }
    }

    /// The media type a file's extension names, among `allowed`.
    static func mediaType(of path: String, allowed: [MediaType]) throws -> MediaType {
        let ext = (path as NSString).pathExtension.lowercased()
        let normalized = ext == "jpeg" ? "jpg" : ext
        guard let type = allowed.first(where: { $0.fileExtension == normalized }) else {
            let names = allowed.map { "." + $0.fileExtension }.joined(separator: " ")
            throw AppError("cannot tell the type of \(path): use one of \(names)", exitCode: .usage)
        }
        return type
    }

    static func fileSize(_ path: String) throws -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = attributes[.size] as? NSNumber
        else { throw AppError("cannot read \(path)", exitCode: .usage) }
        return size.int64Value
    }
}

public import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Which file of an upload.
public enum UploadFile: String, Sendable, Hashable, Codable {
    /// The preview clip (`.mp4`, `.mov`).
    case clip
    /// The still image shown before the clip plays (`.jpg`, `.png`, `.webp`).
    case still
}

/// What the uploader reports while it works.
public enum UploadEvent: Sendable, Hashable {
    /// An attempt at a file's PUT started (attempt 2 and on: after a retry, from the first byte).
    case started(UploadFile, totalBytes: Int64, attempt: Int)
    /// Bytes of the file sent so far in this attempt.
    case progress(UploadFile, sentBytes: Int64, totalBytes: Int64)
    /// A retry of the file's PUT was answered 409 or 412 (`answer`): an earlier attempt stored
    /// the file and only its answer was lost. `.stored` follows; commit checks the bytes.
    case storedByEarlierAttempt(UploadFile, answer: StreamPreviewClientError)
    /// The file is stored.
    case stored(UploadFile)
    /// A request failed in a passing way and is sent again after `after` seconds; `error` is why.
    case retrying(request: String, after: Double, error: StreamPreviewClientError)
}

extension StreamPreviewClient {
    /// Uploads a preview of `stream`: asks for signed URLs (`POST /api/preview/post`), PUTs
    /// `clip` and `still` to them from their files, commits (`POST /api/preview/commit`), and
    /// returns the published item. Failed requests are sent again as `retry` allows (the rules of
    /// `streampreview upload`, see `UploadRetryPolicy`); `onEvent` gets progress and retries.
    ///
    /// For uploads that go on while an iOS app is suspended, use the three steps instead:
    /// `requestUpload` gives an `UploadTicket` (keep it, it is `Codable`); hand
    /// `ticket.clip.request` with `ticket.clip.file` (and the same of `ticket.still`) to a
    /// background session's `uploadTask(with:fromFile:)`; when both tasks have completed with
    /// a 2xx (the app may have been relaunched, in
    /// `application(_:handleEventsForBackgroundURLSession:completionHandler:)`), call
    /// `commit(ticket)`.
    public func upload(
        stream: Int64, clip: URL, still: URL, details: PreviewDetails = PreviewDetails(),
        onEvent: (@Sendable (UploadEvent) -> Void)? = nil
    ) async throws -> UploadResult {
        let ticket = try await requestUpload(
            stream: stream, clip: clip, still: still, details: details, onEvent: onEvent)
        return UploadResult(ticket: ticket, item: try await finishUpload(ticket, onEvent: onEvent))
    }

    /// `POST /api/preview/post`: signed PUT URLs for the two files, bound to their sizes and types
    /// (from the extensions), with what `details` says of the preview. Sent again only when the
    /// server cannot have issued URLs.
    public func requestUpload(
        stream: Int64, clip: URL, still: URL, details: PreviewDetails = PreviewDetails(),
        onEvent: (@Sendable (UploadEvent) -> Void)? = nil
    ) async throws -> UploadTicket {
        let label = "POST /api/preview/post"
        let clipType = try Self.mediaType(of: clip, among: Self.clipTypes, label: label)
        let stillType = try Self.mediaType(of: still, among: Self.stillTypes, label: label)
        let body = PostRequest(
            streamId: stream, movieBytes: try Self.size(of: clip, label: label),
            thumbnailBytes: try Self.size(of: still, label: label), movieContentType: clipType,
            thumbnailContentType: stillType, details: details)
        let answer = try await retrying(.post, label: label, expiresAt: nil, onEvent: onEvent) { _ in
            try await self.exchange(
                try await self.apiRequest("POST", "/api/preview/post", body: body, authenticated: true), label: label)
        }
        guard let answer else { throw StreamPreviewClientError(failure: .invalidAnswer, request: label, message: "") }
        let issued: PostResponse = try decode(answer, label: label)
        guard let clipURL = URL(string: issued.movieBodyUrl), let stillURL = URL(string: issued.movieThumbnailBodyUrl)
        else { throw StreamPreviewClientError(failure: .invalidAnswer, request: label, message: "bad upload URLs") }
        return UploadTicket(
            streamId: stream, uploadId: issued.uploadId, expiresAt: issued.expiresAt, refreshAfter: issued.refreshAfter,
            clip: SignedPut(url: clipURL, headers: issued.movieHeaders, file: clip),
            still: SignedPut(url: stillURL, headers: issued.thumbnailHeaders, file: still))
    }

    /// PUTs both files of `ticket`, then commits it.
    public func finishUpload(_ ticket: UploadTicket, onEvent: (@Sendable (UploadEvent) -> Void)? = nil)
        async throws -> FeedItem
    {
        try await put(ticket.clip, as: .clip, expiresAt: ticket.expiresAt, onEvent: onEvent)
        try await put(ticket.still, as: .still, expiresAt: ticket.expiresAt, onEvent: onEvent)
        return try await commit(ticket, onEvent: onEvent)
    }

    /// `POST /api/preview/commit`: the server checks both stored objects and publishes them.
    /// Idempotent, so it is sent again on passing failures.
    public func commit(_ ticket: UploadTicket, onEvent: (@Sendable (UploadEvent) -> Void)? = nil)
        async throws -> FeedItem
    {
        let label = "POST /api/preview/commit"
        let body = CommitRequest(streamId: ticket.streamId, uploadId: ticket.uploadId)
        let answer = try await retrying(.commit, label: label, expiresAt: nil, onEvent: onEvent) { _ in
            try await self.exchange(
                try await self.apiRequest("POST", "/api/preview/commit", body: body, authenticated: true),
                label: label)
        }
        guard let answer else { throw StreamPreviewClientError(failure: .invalidAnswer, request: label, message: "") }
        return try decode(answer, label: label)
    }

    /// PUTs one file to its signed URL (one of an `UploadTicket`'s, expiring at `expiresAt`),
    /// from its first byte on every attempt, sent again as `retry` allows while the URL lives.
    /// `finishUpload` calls it for both files.
    public func put(
        _ target: SignedPut, as file: UploadFile, expiresAt: Int64, onEvent: (@Sendable (UploadEvent) -> Void)? = nil
    ) async throws {
        let label = "PUT of \(target.file.lastPathComponent)"
        let total = try Self.size(of: target.file, label: label)
        let request = TransportRequest(
            method: "PUT", url: target.url, headers: target.sentHeaders, bodyFile: target.file,
            timeout: retry.putTimeout)
        // A 2xx, or a retry's 409 or 412: either way the store holds the file now.
        _ = try await retrying(.put, label: label, expiresAt: expiresAt, onEvent: onEvent, file: file) { attempt in
            onEvent?(.started(file, totalBytes: total, attempt: attempt))
            return try await self.exchange(request, label: label) { sent, _ in
                onEvent?(.progress(file, sentBytes: sent, totalBytes: total))
            }
        }
        onEvent?(.stored(file))
    }

    /// Calls `send` with the attempt number (from 1) until `retry` settles it: the 2xx answer,
    /// or nil when a PUT's retry was answered 409 or 412 ("stored by an earlier attempt"). The
    /// error that ends it says how many attempts were made and why they stopped (`gaveUp`).
    func retrying(
        _ kind: UploadRetryPolicy.Request, label: String, expiresAt: Int64?,
        onEvent: (@Sendable (UploadEvent) -> Void)?, file: UploadFile? = nil,
        _ send: (_ attempt: Int) async throws -> TransportResponse
    ) async throws -> TransportResponse? {
        let started = clock.monotonic()
        var attempt = 0
        while true {
            attempt += 1
            var error: StreamPreviewClientError
            do {
                let response = try await send(attempt)
                if (200..<300).contains(response.status) { return response }
                error = StreamPreviewClientError(response, request: label, now: clock.now())
            } catch let failure as StreamPreviewClientError {
                error = failure
            }
            error.attempts = attempt
            let elapsed = clock.monotonic() - started
            let budget: UploadRetryPolicy.Budget =
                expiresAt.map { .urlSecondsLeft(Double($0) - clock.now()) } ?? .elapsed(elapsed)
            switch retry.judge(
                error.failure, code: error.code, retryAfter: error.retryAfter, request: kind, attempt: attempt,
                budget: budget, random: clock.random())
            {
            case .succeeded: throw error  // unreachable: a 2xx returned above
            case .storedEarlier:
                if let file { onEvent?(.storedByEarlierAttempt(file, answer: error)) }
                return nil
            case .retry(let wait):
                onEvent?(.retrying(request: label, after: wait, error: error))
                try await clock.sleep(wait)
            case .stop(let reason):
                error.gaveUp = reason
                throw error
            }
        }
    }

    static let clipTypes = ["mp4": "video/mp4", "mov": "video/quicktime"]
    static let stillTypes = ["jpg": "image/jpeg", "jpeg": "image/jpeg", "png": "image/png", "webp": "image/webp"]

    static func mediaType(of file: URL, among types: [String: String], label: String) throws -> String {
        guard let type = types[file.pathExtension.lowercased()] else {
            let names = types.keys.sorted().map { "." + $0 }.joined(separator: " ")
            throw StreamPreviewClientError(
                failure: .fatal, request: label,
                message: "cannot tell the type of \(file.lastPathComponent): use \(names)")
        }
        return type
    }

    static func size(of file: URL, label: String) throws -> Int64 {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: file.path),
            let size = attributes[.size] as? NSNumber
        else { throw StreamPreviewClientError(failure: .fatal, request: label, message: "cannot read \(file.path)") }
        return size.int64Value
    }
}

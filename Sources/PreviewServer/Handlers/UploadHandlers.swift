import PreviewCore
import PreviewCrypto
import PreviewRedis

/// `POST /api/preview/post`, `POST /api/preview/commit`, `DELETE /api/preview/{streamId}`.
struct UploadHandlers: Sendable {
    let context: AppContext

    /// Issues an upload: a fresh upload ID, two object keys, two signed PUT URLs. Refused while
    /// the local store's disk is under its floor (503), and when the objects would take the
    /// subject's or the stream's retained bytes over their limits (429, checked in that order:
    /// see `PreviewStore.reserveRetained`).
    func post(_ request: HTTPRequest) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        let body = try WireIO.decode(StreamPreviewPostRequest.self, from: request)
        let spec = try context.policy.validate(
            streamId: body.streamId, movieBytes: body.movieBytes, thumbnailBytes: body.thumbnailBytes,
            movieContentType: body.movieContentType, thumbnailContentType: body.thumbnailContentType
        ).get()
        try Authenticator.requireOwner(caller, of: spec.streamId)
        try FigureHandlers.check(body.watchUrl, allowedSchemes: context.watchURLSchemes)
        let details = try body.details.validated().get()
        if let shortfall = context.diskFloor?.shortfall() {
            Log.warn("upload_refused_disk_low", ["stream_id": String(spec.streamId), "reason": shortfall])
            throw APIError(
                .insufficientStorage, "the object store is low on disk space; retry later", retryAfter: 30)
        }

        let uploadId = UploadID.make(randomBytes: try SecureRandom.bytes(16))
        let upload = PendingUpload(
            streamId: spec.streamId, uploadId: uploadId,
            movieKey: ObjectKeys.movie(streamId: spec.streamId, uploadId: uploadId, type: spec.movie.type),
            thumbnailKey: ObjectKeys.thumbnail(streamId: spec.streamId, uploadId: uploadId, type: spec.thumbnail.type),
            movie: spec.movie, thumbnail: spec.thumbnail, urlExpiresAt: now + context.policy.uploadURLTTL,
            commitDeadline: now + context.policy.uploadURLTTL + context.policy.commitWindow,
            subject: caller.subject, details: details)
        let ttl = context.policy.uploadURLTTL
        let movie = try context.storage.uploadTarget(key: upload.movieKey, spec: spec.movie, now: now, expiresIn: ttl)
        let thumbnail = try context.storage.uploadTarget(
            key: upload.thumbnailKey, spec: spec.thumbnail, now: now, expiresIn: ttl)
        try record(upload, now: now)
        if !body.watchUrl.isEmpty { try context.store.setWatchURL(streamId: spec.streamId, body.watchUrl) }
        let response = StreamPreviewPostResponse(
            movieBodyUrl: movie.url, movieThumbnailBodyUrl: thumbnail.url, uploadId: uploadId,
            expiresAt: upload.urlExpiresAt, movieHeaders: movie.headers, thumbnailHeaders: thumbnail.headers,
            refreshAfter: context.policy.previewRefresh)
        return WireIO.response(response, for: request)
    }

    /// Records an issued upload, counting its objects at their signed sizes in the subject's
    /// and then the stream's retained bytes; a refusal by the stream releases the subject's count.
    private func record(_ upload: PendingUpload, now: Int64) throws {
        let policy = context.policy
        let subject = policy.maxRetainedBytesPerSubject > 0 ? upload.subject : nil
        let objects = [
            PreviewStore.RetainedObject(
                key: upload.movieKey, bytes: upload.movie.maxBytes, due: upload.commitDeadline + 1),
            PreviewStore.RetainedObject(
                key: upload.thumbnailKey, bytes: upload.thumbnail.maxBytes, due: upload.commitDeadline + 1),
        ]
        if let subject,
            let retryAfter = try context.store.reserveRetained(
                subject: subject, objects: objects, now: now, maxBytes: policy.maxRetainedBytesPerSubject)
        {
            throw APIError(
                .storageQuotaExceeded,
                "your uploads already hold \(policy.maxRetainedBytesPerSubject) bytes of storage (issued, live, or "
                    + "replaced and kept for their grace period); retry when the oldest is released",
                retryAfter: retryAfter)
        }
        let recorded: PreviewStore.RecordOutcome
        do {
            recorded = try context.store.recordUpload(
                upload, now: now, maxPending: policy.maxPendingUploads,
                maxRetainedBytes: policy.maxRetainedBytesPerStream)
        } catch {
            release(subject, objects)
            throw error
        }
        switch recorded {
        case .recorded: return
        case .tooManyPending(let retryAfter):
            release(subject, objects)
            throw APIError(
                .tooManyPendingUploads,
                "stream \(upload.streamId) already has \(policy.maxPendingUploads) uploads issued and not "
                    + "committed; commit one, or retry when the oldest expires",
                target: "streamId", retryAfter: retryAfter)
        case .quotaExceeded(let retryAfter):
            release(subject, objects)
            throw APIError(
                .storageQuotaExceeded,
                "stream \(upload.streamId)'s objects already hold \(policy.maxRetainedBytesPerStream) bytes of "
                    + "storage (issued, live, or replaced and kept for their grace period); retry when the oldest "
                    + "is released",
                target: "streamId", retryAfter: retryAfter)
        }
    }

    /// Gives back a subject's count for an upload that was not recorded. A failure only logs:
    /// the count then stops at its due time by itself (the commit deadline + 1).
    private func release(_ subject: String?, _ objects: [PreviewStore.RetainedObject]) {
        guard let subject else { return }
        do {
            try context.store.releaseRetained(subject: subject, objectKeys: objects.map(\.key))
        } catch {
            Log.warn("retained_release_failed", ["subject": subject, "error": "\(error)"])
        }
    }

    /// Verifies both objects of an upload and publishes them as the stream's new preview.
    func commit(_ request: HTTPRequest) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        let body = try WireIO.decode(StreamPreviewCommitRequest.self, from: request)
        guard StreamID.isValid(body.streamId) else {
            throw APIError.invalid("streamId", "streamId must be a positive 64-bit integer")
        }
        guard UploadID.isValid(body.uploadId) else {
            throw APIError.invalid("uploadId", "uploadId must be the 32 hex digits the upload request returned")
        }
        try Authenticator.requireOwner(caller, of: body.streamId)

        let pending: PendingUpload
        switch try commitState(streamId: body.streamId, uploadId: body.uploadId, now: now) {
        case .published(let live): return try answer(.alreadyPublished(live), request: request, now: now)
        case .pending(let upload): pending = upload
        }
        let isClip = MediaType.clipTypes.contains(pending.movie.type)
        let movie = try verify(
            key: pending.movieKey, spec: pending.movie, name: "movie",
            prefixLength: isClip ? MP4Inspector.Limits().prefixLength : MediaType.sniffLength)
        let thumbnail = try verify(
            key: pending.thumbnailKey, spec: pending.thumbnail, name: "thumbnail", prefixLength: MediaType.sniffLength)
        let clip =
            isClip ? try inspectClip(key: pending.movieKey, object: movie, streamId: pending.streamId) : MP4Info()
        let verified = Verified(movieBytes: movie.size, thumbnailBytes: thumbnail.size, clip: clip)
        guard let hook = context.commitHook else {
            return try publish(pending, verified, labels: [:], request: request, now: now)
        }
        // Last, so the hook sees only uploads that passed every other check.
        return try moderate(
            pending.streamId, pending.uploadId, by: hook, subject: caller.subject, verified: verified,
            request: request, now: now)
    }

    /// What commit read from a pending upload's objects.
    struct Verified {
        var movieBytes: Int64
        var thumbnailBytes: Int64
        var clip: MP4Info
    }

    /// Publishes a verified upload with `labels` and answers the new item.
    func publish(
        _ pending: PendingUpload, _ verified: Verified, labels: [String: String], request: HTTPRequest, now: Int64
    ) throws -> HTTPResponse {
        let clip = verified.clip
        let record = PreviewRecord(
            streamId: pending.streamId, version: 0, uploadId: pending.uploadId, movieKey: pending.movieKey,
            thumbnailKey: pending.thumbnailKey, movieType: pending.movie.type, thumbnailType: pending.thumbnail.type,
            movieBytes: verified.movieBytes, thumbnailBytes: verified.thumbnailBytes,
            movieURL: context.publicURL(of: pending.movieKey),
            thumbnailURL: context.publicURL(of: pending.thumbnailKey),
            updatedAt: now, expiresAt: now + context.policy.previewTTL, durationMs: clip.durationMs, width: clip.width,
            height: clip.height, fastStart: clip.fastStart, codecs: clip.codecs,
            details: pending.details.labelled(by: labels), labels: labels)
        let outcome = try context.store.publish(record, retireUntil: now + context.graceSeconds, now: now)
        if case .published(let stream) = outcome {
            context.feedCache.published(stream, nowMilliseconds: context.nowMilliseconds())
            settleRetained(pending, record: record, now: now)
        }
        return try answer(outcome, request: request, now: now)
    }

    /// Counts a committed upload's objects in its subject's retained bytes at their real sizes
    /// until the preview's expiry + grace (the stream's count was set by the publish script).
    /// A failure only logs: the commit is done, and the reservation stands until the commit
    /// deadline.
    private func settleRetained(_ pending: PendingUpload, record: PreviewRecord, now: Int64) {
        guard context.policy.maxRetainedBytesPerSubject > 0, let subject = pending.subject else { return }
        let due = record.expiresAt + context.graceSeconds
        do {
            try context.store.settleRetained(
                subject: subject,
                objects: [
                    .init(key: record.movieKey, bytes: record.movieBytes, due: due),
                    .init(key: record.thumbnailKey, bytes: record.thumbnailBytes, due: due),
                ], now: now)
        } catch {
            Log.warn("retained_settle_failed", ["subject": subject, "error": "\(error)"])
        }
    }

    func answer(_ outcome: PreviewStore.PublishOutcome, request: HTTPRequest, now: Int64) throws -> HTTPResponse {
        switch outcome {
        case .published(let stream), .alreadyPublished(let stream):
            let item = try context.feedItem(stream, seen: false, liked: false, now: now)
            return WireIO.response(item, for: request)
        case .uploadGone:
            throw APIError(.uploadNotFound, "the upload expired before it was committed", target: "uploadId")
        }
    }

    /// Checks one uploaded object: it exists, its size and type are what was signed, and its
    /// leading bytes are of that type.
    private func verify(key: String, spec: UploadSpec.ObjectSpec, name: String, prefixLength: Int) throws -> ObjectInfo
    {
        guard let info = try context.storage.inspect(key: key, prefixLength: prefixLength) else {
            throw APIError(.objectMissing, "the \(name) was not uploaded", target: name)
        }
        if let declared = spec.declaredBytes, info.size != declared {
            throw APIError(
                .objectSizeMismatch, "the \(name) is \(info.size) bytes; \(declared) were declared", target: name)
        }
        guard info.size > 0, info.size <= spec.maxBytes else {
            throw APIError(
                .objectSizeMismatch, "the \(name) is \(info.size) bytes; allowed are 1 to \(spec.maxBytes)",
                target: name)
        }
        if let stored = info.contentType, MediaType.parse(stored) != spec.type {
            throw APIError(
                .objectTypeMismatch, "the \(name) was stored as \(stored), not \(spec.type.rawValue)", target: name)
        }
        guard spec.type.matches(info.prefix) else {
            throw APIError(
                .objectContentMismatch, "the \(name)'s leading bytes are not those of \(spec.type.rawValue)",
                target: name)
        }
        return info
    }

    /// Reads the clip's MP4 box structure from the prefix `verify` read, plus at most one ranged
    /// read (the `moov` box when it is not in the prefix), and applies the fast-start policy.
    private func inspectClip(key: String, object: ObjectInfo, streamId: Int64) throws -> MP4Info {
        let limits = MP4Inspector.Limits()
        var inspection = MP4Inspector.inspect(prefix: object.prefix, totalSize: object.size, limits: limits)
        if case .needMore(let offset, let length) = inspection {
            guard let more = try context.storage.read(key: key, offset: offset, length: length) else {
                throw APIError(.objectMissing, "the movie was not uploaded", target: "movie")
            }
            inspection = MP4Inspector.inspect(
                prefix: object.prefix, more: more, at: offset, totalSize: object.size, limits: limits)
        }
        switch inspection {
        case .complete(let info):
            try requireAllowedCodec(info.sampleDescription)
            guard !info.fastStart else { return info }
            switch context.fastStart {
            case .require:
                throw APIError(
                    .clipNotFastStart,
                    "the movie's metadata (moov box) comes after its media data, which stalls playback until the "
                        + "whole file has downloaded; re-encode it with -movflags +faststart "
                        + "(ffmpeg -i in.mp4 -c copy -movflags +faststart out.mp4) and upload again",
                    target: "movie")
            case .warn:
                Log.warn("clip_not_fast_start", ["stream_id": String(streamId), "key": key])
                return info
            }
        case .invalid(let reason):
            throw APIError(
                .objectContentMismatch, "the movie is not a readable MP4/QuickTime file: \(reason)", target: "movie")
        case .needMore:
            // The second inspect never asks for more; kept exhaustive rather than trapping.
            throw APIError(
                .objectContentMismatch, "the movie's metadata (moov box) could not be reached", target: "movie")
        }
    }

    /// Refuses a clip whose video is not in a codec `--allowed-codecs` lists, or whose codec
    /// cannot be told: a player that cannot decode it shows a black cell.
    private func requireAllowedCodec(_ description: MP4SampleDescription) throws {
        let allowed = MP4VideoCodec.Family.allCases.filter { $0 != .other && context.allowedCodecs.contains($0) }
        let accepted = "this server accepts " + allowed.map(\.displayName).joined(separator: ", ")
        switch description {
        case .video(let codec) where codec.family != .other && context.allowedCodecs.contains(codec.family):
            return
        case .video(let codec):
            throw APIError(
                .unsupportedCodec,
                "the movie's video is \(codec.family.displayName) (\(codec.codecs)); \(accepted) "
                    + "(--allowed-codecs); re-encode it, for example with ffmpeg -c:v libx264",
                target: "movie")
        case .unreadable(let reason):
            throw APIError(
                .unsupportedCodec, "the movie's video codec cannot be read (\(reason)); \(accepted)", target: "movie")
        case .noVideoTrack:
            throw APIError(.unsupportedCodec, "the movie has no video track; \(accepted)", target: "movie")
        }
    }

    /// Takes a stream's preview out of the feed now (end of stream).
    func delete(_ request: HTTPRequest, streamId: Int64) throws -> HTTPResponse {
        let now = context.now
        let caller = try context.authenticator.caller(request, now: now)
        try Authenticator.requireOwner(caller, of: streamId)
        if let version = try context.store.retire(
            streamId: streamId, retireUntil: now + context.graceSeconds, keepAfterEnd: context.seenTTL, now: now)
        {
            context.feedCache.removed(streamId: streamId, version: version)
        }
        return WireIO.noContent()
    }
}

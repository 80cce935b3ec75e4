import PreviewCore
import PreviewRedis

/// Commit's last step with `--commit-hook-url`: the upload's state, a turn to call the hook, its
/// verdict, and the refusal kept with the upload.
extension UploadHandlers {
    /// Where an upload stands when it is committed.
    enum CommitState {
        case pending(PendingUpload)
        /// The upload is the stream's live preview already: commit answers it again.
        case published(LiveStream)
    }

    /// The upload's state as Redis has it now. Throws 409 `upload_not_found` for an upload that
    /// is gone or past its commit deadline, and 422 `rejected_by_hook` for one the hook refused
    /// (unless `--commit-hook-recheck-refused`), without asking the hook.
    func commitState(streamId: Int64, uploadId: String, now: Int64) throws -> CommitState {
        let (pending, live) = try context.store.uploadAndPreview(streamId: streamId, uploadId: uploadId)
        if let live, live.preview.uploadId == uploadId, live.preview.expiresAt > now {
            return .published(live)
        }
        guard let pending, pending.commitDeadline >= now else {
            throw APIError(
                .uploadNotFound, "no such upload, or it has expired; request new upload URLs", target: "uploadId")
        }
        // Kept even with the hook turned off since: what it refused is not published unasked.
        if let reason = pending.hookRefusal, context.commitHook?.settings.recheckRefused != true {
            context.metrics.commitHook.record(.remembered, nanoseconds: nil)
            throw CommitHook.refusal(reason)
        }
        return .pending(pending)
    }

    /// Asks the hook about a verified upload in a turn of its own and publishes what it allows.
    /// The turn is held until the publish, so another commit of the upload waits for it and then
    /// finds the upload published or refused instead of asking again.
    func moderate(
        _ streamId: Int64, _ uploadId: String, by hook: CommitHook, subject: String, verified: Verified,
        request: HTTPRequest, now: Int64
    ) throws -> HTTPResponse {
        try hook.withTurn(streamId: streamId, uploadId: uploadId, subject: subject) {
            // Read again: a commit that held this upload's turn before may have settled it.
            let pending: PendingUpload
            switch try commitState(streamId: streamId, uploadId: uploadId, now: now) {
            case .published(let live): return try answer(.alreadyPublished(live), request: request, now: now)
            case .pending(let upload): pending = upload
            }
            let decision = try hook.review(
                pending, subject: subject, movieBytes: verified.movieBytes, thumbnailBytes: verified.thumbnailBytes,
                clip: verified.clip, now: now)
            switch decision {
            case .publish(let labels):
                return try publish(pending, verified, labels: labels, request: request, now: now)
            case .refuse(let reason):
                remember(reason, streamId: streamId, uploadId: uploadId)
                throw CommitHook.refusal(reason)
            }
        }
    }

    /// Keeps the hook's refusal with the upload. A failure only logs: this commit is refused
    /// all the same, and the next one asks the hook again.
    private func remember(_ reason: String, streamId: Int64, uploadId: String) {
        do {
            try context.store.rememberHookRefusal(streamId: streamId, uploadId: uploadId, reason: reason)
        } catch {
            Log.warn(
                "commit_hook_refusal_not_kept",
                ["stream_id": String(streamId), "upload_id": uploadId, "error": "\(error)"])
        }
    }
}

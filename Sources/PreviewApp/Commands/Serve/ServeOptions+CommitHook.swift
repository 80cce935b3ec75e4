import PreviewCore
import PreviewServer

/// The moderation hook asked before each publish: where it is, its signing secret, its deadline
/// and what a failure means.
struct CommitHookOptions: Sendable, Equatable {
    /// `--commit-hook-url`: an absolute http(s) URL that receives the signed POST.
    var url: String
    /// `--commit-hook-secret-file`: the HMAC secrets of `StreamPreview-Signature`.
    var secretFile: String
    /// `--commit-hook-timeout`: seconds one call may take, connect included.
    var timeoutSeconds: Int64 = 5
    /// `--commit-hook-fail-open`: publish without labels when the hook is down (default: 503).
    var failOpen = false
    /// `--commit-hook-recheck-refused`: ask again when a refused upload is committed again
    /// (default: answer the remembered refusal).
    var recheckRefused = false

    init(url: String, secretFile: String) {
        self.url = url
        self.secretFile = secretFile
    }
}

extension ServeOptions {
    static let commitHookSpecs = [
        OptionSpec(
            flag: "commit-hook-url", environment: "STREAMPREVIEW_COMMIT_HOOK_URL",
            help:
                "moderation hook: each commit, once both objects are verified, POSTs the upload (stream, upload ID, subject, sizes, clip duration, GET URLs of both objects) signed with StreamPreview-Signature to this http(s) URL and publishes only if it answers {\"allow\": true}; {\"allow\": false, \"reason\": ...} is 422 rejected_by_hook. Needs --commit-hook-secret-file (default: no hook)"
        ),
        OptionSpec(
            flag: "commit-hook-secret-file", environment: "STREAMPREVIEW_COMMIT_HOOK_SECRET_FILE",
            help:
                "file of the hook's HMAC-SHA256 signing secret, at least 32 bytes; during a rotation the new secret on the first line and the old one on the next, and calls carry a signature by each"
        ),
        OptionSpec(
            flag: "commit-hook-timeout", environment: "STREAMPREVIEW_COMMIT_HOOK_TIMEOUT",
            help:
                "seconds the hook has to answer, connect included (1 to 60); the commit holds a worker thread meanwhile, and without a verdict in time it is 503 hook_unavailable with Retry-After. A commit that finds no turn free to call the hook waits for one up to this long plus a second (default 5)"
        ),
        OptionSpec(
            flag: "commit-hook-fail-open", environment: "STREAMPREVIEW_COMMIT_HOOK_FAIL_OPEN",
            help:
                "when the hook is down (times out, cannot be reached, answers something that is not a verdict), publish without its labels instead of answering 503 (default: fail closed). Never for a commit that gets no turn to call the hook (busy: other commits' calls fill the turns) nor for an upload the hook refused before: those stay 503",
            isSwitch: true),
        OptionSpec(
            flag: "commit-hook-recheck-refused", environment: "STREAMPREVIEW_COMMIT_HOOK_RECHECK_REFUSED",
            help:
                "ask the hook again each time an upload it refused is committed again (default: the refusal is kept with the upload, in Redis, and a later commit of it is 422 rejected_by_hook with the same reason, without a call)",
            isSwitch: true),
    ]

    static func parseCommitHook(_ options: ParsedOptions, into serve: inout ServeOptions) throws(UsageError) {
        guard let url = options.string("commit-hook-url") else {
            for flag in ["commit-hook-secret-file", "commit-hook-timeout"] where options.isSet(flag) {
                throw UsageError("--\(flag) needs --commit-hook-url")
            }
            for flag in ["commit-hook-fail-open", "commit-hook-recheck-refused"] {
                if try options.bool(flag) { throw UsageError("--\(flag) needs --commit-hook-url") }
            }
            return
        }
        let authority = url.hasPrefix("https://") ? url.dropFirst(8) : url.hasPrefix("http://") ? url.dropFirst(7) : ""
        guard !authority.isEmpty, !authority.hasPrefix("/") else {
            throw UsageError("--commit-hook-url must be an http:// or https:// URL, not '\(url)'")
        }
        guard let secretFile = options.string("commit-hook-secret-file"), !secretFile.isEmpty else {
            throw UsageError(
                "--commit-hook-url needs --commit-hook-secret-file (STREAMPREVIEW_COMMIT_HOOK_SECRET_FILE): the hook "
                    + "must be able to tell our calls from anyone else's")
        }
        var hook = CommitHookOptions(url: url, secretFile: secretFile)
        hook.timeoutSeconds = try options.int64("commit-hook-timeout", default: hook.timeoutSeconds, range: 1...60)
        hook.failOpen = try options.bool("commit-hook-fail-open")
        hook.recheckRefused = try options.bool("commit-hook-recheck-refused")
        serve.commitHook = hook
    }
}

extension CommitHookOptions {
    /// The signing keys of the secret file, read now: a missing or weak secret throws an
    /// `AppError` with exit code `config`, so `serve` stops before it starts anything.
    func loadKeys(crypto: some CryptoPrimitives) throws -> [any HMACKey] {
        try SigningSecretFile.read(secretFile, what: "commit hook secret file").map { crypto.hmacKey($0) }
    }

    /// The hook these options describe. The worker threads also serve the local store's
    /// objects, so at most half of them call the hook and a quarter more wait for a turn.
    func makeHook(keys: [any HMACKey], storage: any ObjectStorage, workerThreads: Int, metrics: CommitHookMetrics)
        -> CommitHook
    {
        if url.hasPrefix("http://") {
            // The URLs in the body let whoever reads them fetch clips that are not published.
            Log.warn("commit_hook_url_not_https", ["url": url])
        }
        var settings = CommitHook.Settings(url: url)
        settings.timeoutSeconds = timeoutSeconds
        settings.failOpen = failOpen
        settings.recheckRefused = recheckRefused
        settings.maxConcurrentCalls = max(1, workerThreads / 2)
        settings.maxWaiting = workerThreads / 4
        return CommitHook(settings: settings, keys: keys, storage: storage, metrics: metrics)
    }
}

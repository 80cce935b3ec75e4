/// When the uploader sends a request again: the rules of `streampreview upload`.
///
/// - PUT of a file (objects are written once): no answer, 5xx, 408 or 429 is retried with
///   backoff (at least `Retry-After`) while the signed URL has more than `expiryMargin` seconds
///   to live. A 409 or 412 on a retry means an earlier attempt stored the object and only its
///   answer was lost: the uploader goes on, and commit checks the bytes. The store's "another
///   write of this key is still running" (`upload_in_progress`, S3's
///   `ConditionalRequestConflict`) is waited out like a 503. Any other 4xx is final.
/// - Commit: the same, as a repeated commit answers the same item.
/// - Post (new upload URLs): each one issues URLs and reserves the stream's quota, so it is sent
///   again only when the server cannot have acted: the connection was never made, or 429 or 503.
public struct UploadRetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included (`streampreview upload --retries N` is `N + 1`).
    public var maxAttempts: Int
    /// The backoff cap before the first retry; doubled for each further one ("full jitter").
    public var baseDelay: Double
    /// No single backoff is longer than this (a longer `Retry-After` is still honoured).
    public var maxDelay: Double
    /// API calls stop retrying once this many seconds would be spent.
    public var maxTotal: Double
    /// No PUT retry starts later than this many seconds before its URL expires.
    public var expiryMargin: Double
    /// Seconds one PUT attempt may take, connect included; a stalled one is sent again.
    public var putTimeout: Double

    public init(
        maxAttempts: Int = 6, baseDelay: Double = 0.5, maxDelay: Double = 15, maxTotal: Double = 60,
        expiryMargin: Double = 5, putTimeout: Double = 120
    ) {
        self.putTimeout = putTimeout
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxTotal = maxTotal
        self.expiryMargin = expiryMargin
    }

    /// Codes of a 409 that mean "another write of this key is still running".
    static let inProgressCodes: Set<String> = ["upload_in_progress", "ConditionalRequestConflict"]

    enum Request: Sendable, Equatable {
        case put, commit, post
    }

    enum Verdict: Sendable, Equatable {
        case succeeded
        /// A PUT retry found the object stored: an earlier attempt wrote it.
        case storedEarlier
        case retry(after: Double)
        /// Give up: the answer or failure is the error, for this reason.
        case stop(StreamPreviewClientError.GiveUp)
    }

    enum Budget: Sendable, Equatable {
        /// An API call: seconds since its first attempt started.
        case elapsed(Double)
        /// A PUT: seconds its signed URL has to live now.
        case urlSecondsLeft(Double)
    }

    /// The verdict after attempt `attempt` (1-based) ended with `failure` and `code`; `random`
    /// in `0..<1` picks the jitter.
    func judge(
        _ failure: StreamPreviewClientError.Failure?, code: String?, retryAfter: Double?, request: Request,
        attempt: Int, budget: Budget, random: Double
    ) -> Verdict {
        guard let failure else { return .succeeded }
        if request == .put, attempt > 1, failure == .status(409) || failure == .status(412),
            !Self.inProgressCodes.contains(code ?? "")
        {
            return .storedEarlier
        }
        guard isWorthRepeating(failure, code: code, request: request) else { return .stop(.final) }
        guard attempt < maxAttempts else { return .stop(.attemptsUsedUp) }
        let wait = max(delay(afterAttempt: attempt, random: random), max(retryAfter ?? 0, 0))
        switch budget {
        case .elapsed(let elapsed):
            return elapsed + wait < maxTotal ? .retry(after: wait) : .stop(.outOfTime(elapsed: elapsed))
        case .urlSecondsLeft(let secondsLeft):
            return wait + expiryMargin < secondsLeft
                ? .retry(after: wait) : .stop(.urlExpiring(secondsLeft: max(secondsLeft, 0)))
        }
    }

    /// Whether a failure of this kind goes away by itself (5xx, 408, 429, no answer).
    static func passes(_ failure: StreamPreviewClientError.Failure) -> Bool {
        switch failure {
        case .status(let status): return status == 408 || status == 429 || (500...599).contains(status)
        case .connect, .timeout, .transfer: return true
        case .invalidAnswer, .fatal: return false
        }
    }

    private func isWorthRepeating(_ failure: StreamPreviewClientError.Failure, code: String?, request: Request) -> Bool
    {
        if failure == .status(409), Self.inProgressCodes.contains(code ?? "") { return request == .put }
        guard request == .post else { return Self.passes(failure) }
        switch failure {
        case .connect: return true
        case .status(let status): return status == 429 || status == 503
        default: return false
        }
    }

    func delay(afterAttempt attempt: Int, random: Double) -> Double {
        var cap = baseDelay
        for _ in 1..<max(1, min(attempt, 31)) { cap *= 2 }
        return min(maxDelay, cap) * min(max(random, 0), 1)
    }
}

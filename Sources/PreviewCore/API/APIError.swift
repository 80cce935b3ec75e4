/// Every error a client can see: a stable machine code, an HTTP status and a human message.
/// Rendered in one place (`ErrorRenderer` in the app) for JSON and protobuf alike.
public struct APIError: Error, Sendable, Equatable {
    public var code: Code
    public var message: String
    /// The field or object the error is about (`streamId`, `movie`, `thumbnail`), if one.
    public var target: String
    /// Seconds after which a retry can succeed, sent as `Retry-After` (RFC 9110 §10.2.3); nil
    /// sends none (`unavailable` always sends 1).
    public var retryAfter: Int64?

    public init(_ code: Code, _ message: String, target: String = "", retryAfter: Int64? = nil) {
        self.code = code
        self.message = message
        self.target = target
        self.retryAfter = retryAfter
    }

    public var status: Int { code.status }

    /// Stable codes; the raw value is what clients see.
    public enum Code: String, Sendable, CaseIterable {
        case invalidArgument = "invalid_argument"
        /// The request itself is malformed at the HTTP level (ambiguous body framing, a header
        /// over this server's limits).
        case badRequest = "bad_request"
        case unauthenticated
        case forbidden
        case notFound = "not_found"
        case methodNotAllowed = "method_not_allowed"
        case notAcceptable = "not_acceptable"
        case uploadNotFound = "upload_not_found"
        case objectMissing = "object_missing"
        /// The object is already stored: the local store writes each object once (as S3 answers
        /// 412 to `If-None-Match: *`). A client that lost the answer to its PUT can go on to commit.
        case objectExists = "object_exists"
        /// Another PUT to the same object URL is still streaming its body: one upload per key at
        /// a time, decided on the head (the local store).
        case uploadInProgress = "upload_in_progress"
        /// An object PUT without `Content-Length` (for example chunked): its size must be known
        /// before the body is read.
        case lengthRequired = "length_required"
        case payloadTooLarge = "payload_too_large"
        case unsupportedMediaType = "unsupported_media_type"
        case rangeNotSatisfiable = "range_not_satisfiable"
        case objectSizeMismatch = "object_size_mismatch"
        case objectTypeMismatch = "object_type_mismatch"
        case objectContentMismatch = "object_content_mismatch"
        /// The clip's `moov` box comes after its media data and the server requires fast-start.
        case clipNotFastStart = "clip_not_fast_start"
        /// The clip's video is in a codec `--allowed-codecs` does not list, or its sample
        /// description (the codec) cannot be read.
        case unsupportedCodec = "unsupported_codec"
        /// The operator's moderation hook (`--commit-hook-url`) refused the preview; the message
        /// is the hook's reason.
        case rejectedByHook = "rejected_by_hook"
        /// The stream already has the configured number of uploads issued and neither committed
        /// nor past their commit deadline (`--max-pending-uploads`).
        case tooManyPendingUploads = "too_many_pending_uploads"
        /// The stream's or the token subject's objects already hold the configured bytes
        /// (`--max-retained-bytes-per-stream`, `--max-retained-bytes-per-subject`).
        case storageQuotaExceeded = "storage_quota_exceeded"
        /// The caller (token subject, or client address) is over its `--rate-limit` for the
        /// route's class; `Retry-After` says when one more request fits.
        case rateLimited = "rate_limited"
        case signatureInvalid = "signature_invalid"
        case urlExpired = "url_expired"
        case streamNotLive = "stream_not_live"
        case internalError = "internal"
        case unavailable
        /// The disk under the local store has less free space than `--min-free-disk-bytes`.
        case insufficientStorage = "insufficient_storage"
        /// The moderation hook did not give a verdict in time (no answer, an error, an answer that
        /// is not one, too many calls in flight); commits are held back until it does.
        case hookUnavailable = "hook_unavailable"
        /// `GET /api/feed/events` found every event stream of this server, or every one its client
        /// address may hold, open (`--max-event-streams`, `--max-event-streams-per-ip`); with
        /// `Retry-After`. Requests other than event streams are not affected.
        case eventStreamsFull = "event_streams_full"

        public var status: Int {
            switch self {
            case .invalidArgument, .badRequest: return 400
            case .unauthenticated: return 401
            case .forbidden, .signatureInvalid, .urlExpired: return 403
            case .notFound, .streamNotLive: return 404
            case .methodNotAllowed: return 405
            case .notAcceptable: return 406
            case .uploadNotFound, .objectMissing, .objectExists, .uploadInProgress: return 409
            case .lengthRequired: return 411
            case .payloadTooLarge: return 413
            case .unsupportedMediaType: return 415
            case .rangeNotSatisfiable: return 416
            case .objectSizeMismatch, .objectTypeMismatch, .objectContentMismatch, .clipNotFastStart, .unsupportedCodec,
                .rejectedByHook:
                return 422
            case .tooManyPendingUploads, .storageQuotaExceeded, .rateLimited: return 429
            case .internalError: return 500
            case .unavailable, .insufficientStorage, .hookUnavailable, .eventStreamsFull: return 503
            }
        }
    }
}

extension APIError {
    public static func invalid(_ field: String, _ message: String) -> APIError {
        APIError(.invalidArgument, message, target: field)
    }

    public static let internalError = APIError(.internalError, "internal error; the request ID is in the logs")

    public static let redisUnavailable = APIError(
        .unavailable, "the preview database is unavailable; retry shortly")

    public static let storageUnavailable = APIError(
        .unavailable, "the object store is unavailable; retry shortly")
}

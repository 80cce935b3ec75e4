import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request that failed: the server's or the store's answer (status, `code`, `message`,
/// `requestId`, `Retry-After`), or how the exchange broke when there was no answer.
public struct StreamPreviewClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// How the exchange ended.
    public enum Failure: Sendable, Hashable {
        /// The server or the store answered with this non-2xx status.
        case status(Int)
        /// The connection was never made (refused, unreachable, DNS): the server did not act.
        case connect
        /// No answer in time.
        case timeout
        /// The connection broke after the request went out: the server may have acted.
        case transfer
        /// A 2xx answer whose body is not what the API describes.
        case invalidAnswer
        /// A local file could not be read, or anything else trying again cannot change.
        case fatal
    }

    public var failure: Failure
    /// What was sent: `POST /api/preview/commit`, `PUT of clip.mp4`, `GET /api/feed/events`.
    public var request: String
    /// The stable machine code (`rate_limited`, `object_missing`; a store's `SlowDown`), when sent.
    public var code: String?
    /// The server's explanation, or the transport's.
    public var message: String
    /// The request ID (the error body's `requestId`, else the `X-Request-Id` header), for support.
    public var requestId: String?
    /// The answer's `Retry-After`, in seconds.
    public var retryAfter: Double?
    /// What the error is about, where one thing is (a field; `movie` or `thumbnail`).
    public var target: String?
    /// Attempts made before giving up (retries of the uploader included).
    public var attempts: Int
    /// Why the uploader's retries stopped at this error; nil outside the uploader.
    public var gaveUp: GiveUp?
    /// The answer's body as text (its first 300 bytes) when it is not an error body the client
    /// reads, such as a proxy's page; nil otherwise.
    public var answerText: String?

    /// Why the uploader stopped sending a request again.
    public enum GiveUp: Sendable, Hashable {
        /// An answer or failure that trying again cannot change (a 4xx; a post that may have
        /// reached the server).
        case final
        /// `UploadRetryPolicy.maxAttempts` were made.
        case attemptsUsedUp
        /// The next attempt would start past `maxTotal` seconds (or `Retry-After` asks for longer);
        /// `elapsed`: seconds spent so far.
        case outOfTime(elapsed: Double)
        /// The next attempt would start within `expiryMargin` of the signed URL's expiry.
        case urlExpiring(secondsLeft: Double)
    }

    /// Whether the failure is of the kind that goes away by itself (no answer, 5xx, 408, 429, or
    /// the store still finishing an earlier write): the same request may work later.
    public var isTransient: Bool {
        UploadRetryPolicy.passes(failure) || UploadRetryPolicy.inProgressCodes.contains(code ?? "")
    }

    /// The HTTP status, when there was an answer.
    public var status: Int? {
        if case .status(let status) = failure { return status }
        return nil
    }

    public init(
        failure: Failure, request: String, code: String? = nil, message: String, requestId: String? = nil,
        retryAfter: Double? = nil, target: String? = nil, attempts: Int = 1
    ) {
        self.failure = failure
        self.request = request
        self.code = code
        self.message = message
        self.requestId = requestId
        self.retryAfter = retryAfter
        self.target = target
        self.attempts = attempts
    }

    /// `POST /api/preview/commit failed: 409 object_missing: … (request 3f2a…)`.
    public var description: String {
        var text = "\(request) failed: "
        switch failure {
        case .status(let status): text += "\(status) "
        case .connect: text += "cannot connect: "
        case .timeout: text += "no answer in time: "
        case .transfer: text += "connection broken: "
        case .invalidAnswer: text += "unexpected answer: "
        case .fatal: break
        }
        if let code { text += code + ": " }
        text += message
        if let requestId { text += " (request \(requestId))" }
        return text
    }
}

extension StreamPreviewClientError {
    /// The error of a non-2xx answer: the API's error body (JSON or protobuf), or a store's XML
    /// error (`<Code>`, `<Message>`), else the status alone (`answerText` keeps what was sent).
    init(_ response: TransportResponse, request: String, now: Double) {
        let error = APIErrorBody.parse(response.body, contentType: response.header("Content-Type"))
        let text = String(decoding: response.body.prefix(300), as: UTF8.self)
        self.init(
            failure: .status(response.status), request: request, code: error?.code,
            message: error?.message
                ?? (text.isEmpty ? HTTPURLResponse.localizedString(forStatusCode: response.status) : text),
            requestId: error?.requestId ?? response.header("X-Request-Id"),
            retryAfter: response.header("Retry-After").flatMap {
                RetryAfterValue.seconds($0, now: Date(timeIntervalSince1970: now))
            },
            target: error?.target)
        if error == nil, !text.isEmpty { answerText = text }
    }

    /// The error of an exchange that got no answer.
    init(_ error: TransportError, request: String) {
        self.init(failure: error.failure, request: request, message: error.message)
    }
}

/// The API's error body (`ErrorResponse`: code, message, target, requestId) or an S3-style XML one.
struct APIErrorBody: Decodable {
    var code: String?
    var message: String?
    var target: String?
    var requestId: String?

    static func parse(_ body: Data, contentType: String?) -> APIErrorBody? {
        if APIEncoding.protobuf.matches(contentType) {
            return (try? APIErrorBody(protobuf: Array(body))).flatMap { $0.code == nil ? nil : $0 }
        }
        if let json = try? JSONDecoder().decode(APIErrorBody.self, from: body), json.code != nil { return json }
        // A store's XML error (S3, GCS): read the two elements without an XML parser (FoundationXML
        // would bring libxml2 into an app's graph).
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        guard let code = element("Code", in: text) else { return nil }
        return APIErrorBody(code: code, message: element("Message", in: text), target: nil, requestId: nil)
    }

    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        return String(text[open.upperBound..<close.lowerBound])
    }
}

/// `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP-date.
enum RetryAfterValue {
    static func seconds(_ value: String, now: Date) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }) { return Double(text) ?? .infinity }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

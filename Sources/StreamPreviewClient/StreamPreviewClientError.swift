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
    /// The error of a non-2xx answer: the API's JSON error body, or a store's XML error
    /// (`<Code>`, `<Message>`), else the status alone.
    init(status: Int, request: String, headers: HTTPURLResponse, body: Data, now: Date = Date()) {
        let error = APIErrorBody.parse(body)
        self.init(
            failure: .status(status), request: request, code: error?.code,
            message: error?.message ?? HTTPURLResponse.localizedString(forStatusCode: status),
            requestId: error?.requestId ?? headers.value(forHTTPHeaderField: "X-Request-Id"),
            retryAfter: headers.value(forHTTPHeaderField: "Retry-After").flatMap {
                RetryAfterValue.seconds($0, now: now)
            },
            target: error?.target)
    }

    /// The error of an exchange that got no answer.
    init(_ error: any Error, request: String) {
        let failure: Failure
        switch (error as? URLError)?.code {
        case .cannotConnectToHost?, .cannotFindHost?, .dnsLookupFailed?, .notConnectedToInternet?:
            failure = .connect
        case .timedOut?: failure = .timeout
        case .badURL?, .unsupportedURL?, .fileDoesNotExist?, .noPermissionsToReadFile?: failure = .fatal
        case nil: failure = .fatal
        default: failure = .transfer
        }
        self.init(failure: failure, request: request, message: Self.describe(error))
    }

    private static func describe(_ error: any Error) -> String {
        guard let url = error as? URLError else { return String(describing: error) }
        switch url.code {
        case .networkConnectionLost: return "connection reset"
        default: return url.localizedDescription
        }
    }
}

/// The API's error body (`ErrorResponse`: code, message, target, requestId) or an S3-style XML one.
struct APIErrorBody: Decodable {
    var code: String?
    var message: String?
    var target: String?
    var requestId: String?

    static func parse(_ body: Data) -> APIErrorBody? {
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

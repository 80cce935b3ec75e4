import PreviewCore

/// Reading API messages from requests and writing them into responses, in JSON or protobuf.
enum WireIO {
    /// The largest API request body; larger is 413.
    static let maxAPIBodyBytes = 64 * 1024

    /// Decodes the request body as `M`, by Content-Type. 415 for other types, 400 for bad bytes.
    static func decode<M: WireMessage>(_ type: M.Type, from request: HTTPRequest) throws(APIError) -> M {
        guard
            let format = WireFormat.ofRequestBody(
                contentType: request.headers["Content-Type"], bodyIsEmpty: request.body.isEmpty)
        else {
            throw APIError(
                .unsupportedMediaType, "send application/json or application/x-protobuf",
                target: "Content-Type")
        }
        do {
            switch format {
            case .json: return try M(json: request.body)
            case .protobuf: return try M(protobuf: request.body)
            }
        } catch {
            switch error {
            case .malformed(let message): throw APIError(.invalidArgument, "malformed request body: \(message)")
            case .invalidField(let name, let message): throw APIError.invalid(name, message)
            }
        }
    }

    /// What Accept asks for: the request's `negotiation` when the router has made it, else read now.
    /// Without a usable Accept, the request's own body format, then JSON.
    static func negotiate(_ request: HTTPRequest) -> WireFormat.Negotiation {
        request.negotiation ?? WireFormat.negotiate(accept: request.headers["Accept"], fallback: ownFormat(request))
    }

    /// The format of the request's body, JSON when it has none or another.
    private static func ownFormat(_ request: HTTPRequest) -> WireFormat {
        WireFormat.ofRequestBody(contentType: request.headers["Content-Type"], bodyIsEmpty: true) ?? .json
    }

    /// The response format: Accept first, then the request's own body format, then JSON; nil
    /// when Accept admits neither format.
    static func acceptableFormat(for request: HTTPRequest) -> WireFormat? {
        negotiate(request).responseFormat(fallback: ownFormat(request))
    }

    /// 406 unless Accept admits JSON or protobuf; 400 when Accept is over the limits
    /// (`MediaRange.maxRanges` ranges, `MediaRange.maxHeaderBytes` bytes).
    static func requireAcceptableFormat(_ request: HTTPRequest) throws(APIError) {
        switch negotiate(request) {
        case .format: return
        case .notAcceptable:
            throw APIError(.notAcceptable, "accept application/json or application/x-protobuf", target: "Accept")
        case .tooLarge:
            throw APIError(
                .badRequest,
                "the Accept header lists more than \(WireFormat.maxAcceptRanges) media ranges or is over "
                    + "\(WireFormat.maxAcceptBytes) bytes", target: "Accept")
        }
    }

    /// The format a response is written in: the acceptable one, JSON when there is none (the
    /// body of a 406 itself).
    static func responseFormat(for request: HTTPRequest) -> WireFormat {
        acceptableFormat(for: request) ?? .json
    }

    static func response(_ message: some WireMessage, status: Int = 200, for request: HTTPRequest) -> HTTPResponse {
        let format = responseFormat(for: request)
        switch format {
        case .json: return response(body: message.jsonBytes(), format: format, status: status)
        case .protobuf: return response(body: message.protobufBytes(), format: format, status: status)
        }
    }

    /// A message already encoded in `format`.
    static func response(body: [UInt8], format: WireFormat, status: Int = 200) -> HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", format.contentType)
        headers.add("Cache-Control", "no-store")
        return HTTPResponse(status: status, headers: headers, body: .bytes(body))
    }

    /// The error body, same shape in JSON and protobuf (`ErrorResponse` in the proto).
    static func error(_ error: APIError, requestId: String, for request: HTTPRequest) -> HTTPResponse {
        let message = ErrorResponse(
            code: error.code.rawValue, message: error.message, target: error.target, requestId: requestId)
        var response = response(message, status: error.status, for: request)
        if let seconds = error.retryAfter ?? (error.code == .unavailable ? 1 : nil) {
            response.headers.add("Retry-After", String(seconds))
        }
        if error.code == .unauthenticated { response.headers.add("WWW-Authenticate", "Bearer") }
        return response
    }

    static func noContent() -> HTTPResponse { HTTPResponse(status: 204) }
}

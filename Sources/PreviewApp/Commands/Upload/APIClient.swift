import PreviewCore
import PreviewHTTPClient

/// Calls API routes with a bearer token in JSON or protobuf.
struct APIClient {
    let client: HTTPClient
    let server: String
    let token: String
    let format: WireFormat

    func call<Response: WireMessage>(_ path: String, _ message: some WireMessage) throws -> Response {
        let response = try client.send(request(path, message))
        guard response.status == 200 else {
            throw AppError("\(path) failed with \(response.status): \(Self.describe(response))")
        }
        return try decode(response)
    }

    /// The POST of `message` to `path`, with the token and the wire format's headers.
    func request(_ path: String, _ message: some WireMessage) -> HTTPClientRequest {
        var request = HTTPClientRequest(
            method: "POST", url: server + path,
            body: .bytes(format == .json ? message.jsonBytes() : message.protobufBytes()))
        request.headers.add("Authorization", "Bearer \(token)")
        request.headers.add("Content-Type", format.contentType)
        request.headers.add("Accept", format.contentType)
        return request
    }

    func decode<Response: WireMessage>(_ response: HTTPClientResponse) throws -> Response {
        try format == .json ? Response(json: response.body) : Response(protobuf: response.body)
    }

    static func describe(_ response: HTTPClientResponse) -> String {
        if let error = errorBody(response) { return "\(error.code): \(error.message)" }
        return String(decoding: response.body.prefix(300), as: UTF8.self)
    }

    /// The machine code and message of an error answer: the service's `ErrorResponse` (JSON or
    /// protobuf), or an S3 or GCS store's XML error (a signed PUT URL may point at one).
    static func errorBody(_ response: HTTPClientResponse) -> (code: String, message: String)? {
        if let error = try? ErrorResponse(json: response.body), !error.code.isEmpty {
            return (error.code, error.message)
        }
        if let error = try? ErrorResponse(protobuf: response.body), !error.code.isEmpty {
            return (error.code, error.message)
        }
        if let error = StoreErrorBody.parse(response.body), let code = error.code {
            return (code, error.message ?? "")
        }
        return nil
    }
}

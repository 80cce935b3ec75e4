import PreviewCore

/// An `APIError` answered with extra response headers, such as the `Content-Range: bytes */N`
/// of a 416; the router renders it like any other API error.
struct APIFailure: Error {
    var error: APIError
    var headers: HTTPHeaders

    init(_ error: APIError, headers: HTTPHeaders) {
        self.error = error
        self.headers = headers
    }
}

import PreviewCore
import PreviewHTTPClient

extension RetryPolicy.Outcome {
    /// How a request that got no answer failed, as the retry rules see it: timeouts, refused
    /// and broken connections can heal; a bad URL or request, or an unreadable file, cannot.
    init(_ error: HTTPClientError) {
        switch error.kind {
        case .timeout: self = .timeout
        case .connect: self = .connect
        case .transfer: self = .transfer
        case .invalidURL, .invalidRequest, .file: self = .fatal
        }
    }
}

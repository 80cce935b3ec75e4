import Foundation
import PreviewServer
import StreamPreviewClient

/// What `upload` and `capture` say about a request of the uploader, from the package's errors:
/// each retry is one line (`retrying PUT of clip.mp4 in 1.2 s: connection reset (attempt 2 of
/// 6)`), and giving up is an `AppError` naming the last answer, with exit code 75 when it was of
/// the passing kind (5xx, 408, 429, timeouts, broken connections) and 1 otherwise.
enum UploadMessages {
    /// `503 unavailable: the store is busy`, `HTTP 412`, `connection reset`, `cannot connect: …`.
    static func reason(_ error: StreamPreviewClientError) -> String {
        switch error.failure {
        case .status(let status):
            if let code = error.code { return "\(status) \(code): \(error.message)" }
            return error.answerText.map { "\(status) \($0)" } ?? "HTTP \(status)"
        case .connect: return "cannot connect: \(error.message)"
        case .timeout, .transfer, .invalidAnswer, .fatal: return error.message
        }
    }

    static func retrying(_ error: StreamPreviewClientError, after wait: Double, maxAttempts: Int) -> String {
        "retrying \(error.request) in \(seconds(wait)) s: \(reason(error)) (attempt \(error.attempts + 1) of \(maxAttempts))"
    }

    static func storedEarlier(_ answer: StreamPreviewClientError) -> String {
        "\(answer.request): \(reason(answer)) on attempt \(answer.attempts): an earlier attempt stored it"
    }

    /// The command's error for the uploader's last one.
    static func failure(_ error: StreamPreviewClientError) -> AppError {
        AppError(message(error), exitCode: error.isTransient ? .tempFailure : .failure)
    }

    private static func message(_ error: StreamPreviewClientError) -> String {
        let label = error.request
        let tries = error.attempts == 1 ? "1 attempt" : "\(error.attempts) attempts"
        switch error.gaveUp {
        case .final?, nil:
            if label == "POST /api/preview/post", error.isTransient {
                return "\(label) failed: \(reason(error)) (not repeated: the server may have issued URLs already)"
            }
            return "\(label) failed: \(reason(error))"
        case .attemptsUsedUp?:
            return "\(label) failed after \(tries): \(reason(error))"
        case .outOfTime(let elapsed)?:
            let asked = error.retryAfter.map { "; the server asks to wait \(seconds($0)) s" } ?? ""
            return "\(label) failed after \(tries) in \(seconds(elapsed)) s: \(reason(error))\(asked)"
        case .urlExpiring(let secondsLeft)?:
            return "\(label) failed after \(tries): \(reason(error)); not retried, as its URL expires in "
                + "\(seconds(secondsLeft)) s"
        }
    }

    /// `1.2` for messages: one decimal.
    static func seconds(_ value: Double) -> String { String(format: "%.1f", value) }
}

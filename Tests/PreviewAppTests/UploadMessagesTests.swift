import PreviewHTTPClient
import StreamPreviewClient
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// What `upload` and `capture` print about the uploader's requests: the reason of each answer
/// or broken exchange, and the line that gives up, with its exit code.
@Suite struct UploadMessagesTests {
    static func error(
        _ failure: StreamPreviewClientError.Failure, _ code: String? = nil, message: String = "",
        request: String = "PUT of clip.mp4", attempts: Int = 1, gaveUp: StreamPreviewClientError.GiveUp? = nil
    ) -> StreamPreviewClientError {
        var error = StreamPreviewClientError(failure: failure, request: request, code: code, message: message)
        error.attempts = attempts
        error.gaveUp = gaveUp
        return error
    }

    @Test func anAnswerIsToldByItsStatusCodeAndMessage() {
        #expect(
            UploadMessages.reason(Self.error(.status(503), "unavailable", message: "the store is busy"))
                == "503 unavailable: the store is busy")
        var bare = Self.error(.status(502), message: "bad gateway")
        #expect(UploadMessages.reason(bare) == "HTTP 502")
        bare.answerText = "<html>oops</html>"
        #expect(UploadMessages.reason(bare) == "502 <html>oops</html>")
        #expect(UploadMessages.reason(Self.error(.connect, message: "refused")) == "cannot connect: refused")
    }

    @Test func aBrokenExchangeIsToldInAFewWords() {
        let reset = TransportError(
            HTTPClientError(kind: .transfer, message: "Send failure: Connection reset by peer"), timeoutSeconds: 120)
        #expect(reset == TransportError(.transfer, "connection reset"))
        let timeout = TransportError(
            HTTPClientError(kind: .timeout, message: "Operation timed out after 2000 ms"), timeoutSeconds: 2)
        #expect(timeout == TransportError(.timeout, "no answer within 2.0 s"))
        let file = TransportError(HTTPClientError(kind: .file, message: "open x: No such file"), timeoutSeconds: 1)
        #expect(file.failure == .fatal)
    }

    @Test func givingUpSaysWhyWithExitCode75ForFailuresThatPass() {
        let used = UploadMessages.failure(
            Self.error(.status(503), "SlowDown", message: "Reduce your rate", attempts: 3, gaveUp: .attemptsUsedUp))
        #expect(used.description == "PUT of clip.mp4 failed after 3 attempts: 503 SlowDown: Reduce your rate")
        #expect(used.exitCode == .tempFailure)
        let expiring = UploadMessages.failure(
            Self.error(.status(503), "unavailable", message: "busy", gaveUp: .urlExpiring(secondsLeft: 3)))
        #expect(
            expiring.description
                == "PUT of clip.mp4 failed after 1 attempt: 503 unavailable: busy; not retried, as its URL expires in 3.0 s"
        )
        var late = Self.error(
            .status(429), "rate_limited", message: "slow", request: "POST /api/preview/commit", attempts: 2,
            gaveUp: .outOfTime(elapsed: 1.25))
        late.retryAfter = 600
        #expect(
            UploadMessages.failure(late).description
                == "POST /api/preview/commit failed after 2 attempts in 1.2 s: 429 rate_limited: slow; "
                + "the server asks to wait 600.0 s")
        let refused = UploadMessages.failure(
            Self.error(.status(422), "invalid_media", message: "no moov", gaveUp: .final))
        #expect(refused.description == "PUT of clip.mp4 failed: 422 invalid_media: no moov")
        #expect(refused.exitCode == .failure)
        let lostPost = UploadMessages.failure(
            Self.error(.transfer, message: "connection reset", request: "POST /api/preview/post", gaveUp: .final))
        #expect(
            lostPost.description
                == "POST /api/preview/post failed: connection reset (not repeated: the server may have issued URLs already)"
        )
        #expect(lostPost.exitCode == .tempFailure)
    }
}

import Foundation
import Testing

@testable import StreamPreviewClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The uploader's retry rules, which are `streampreview upload`'s.
@Suite("Upload retry policy")
struct UploadRetryPolicyTests {
    let policy = UploadRetryPolicy()

    func judge(
        _ failure: StreamPreviewClientError.Failure, code: String? = nil, retryAfter: Double? = nil,
        _ request: UploadRetryPolicy.Request, attempt: Int = 1, budget: UploadRetryPolicy.Budget = .elapsed(0)
    ) -> UploadRetryPolicy.Verdict {
        policy.judge(
            failure, code: code, retryAfter: retryAfter, request: request, attempt: attempt, budget: budget,
            random: 0.5)
    }

    @Test("A post is repeated only when the server cannot have acted")
    func post() {
        #expect(judge(.connect, .post) == .retry(after: 0.25))
        #expect(judge(.status(429), retryAfter: 2, .post) == .retry(after: 2))
        #expect(judge(.status(503), .post) == .retry(after: 0.25))
        for failure: StreamPreviewClientError.Failure in [.transfer, .timeout, .status(500), .status(502)] {
            #expect(judge(failure, .post) == .stop, "\(failure)")
        }
    }

    @Test("PUTs and commits are repeated on passing failures; a PUT retry's 409 or 412 is an earlier success")
    func putAndCommit() {
        for request: UploadRetryPolicy.Request in [.put, .commit] {
            #expect(judge(.transfer, request) == .retry(after: 0.25))
            #expect(judge(.status(408), request, attempt: 2) == .retry(after: 0.5))
            #expect(judge(.status(422), request) == .stop)
        }
        #expect(judge(.status(409), code: "object_exists", .put, attempt: 2) == .storedEarlier)
        #expect(judge(.status(412), .put, attempt: 2) == .storedEarlier)
        #expect(judge(.status(409), code: "object_exists", .put, attempt: 1) == .stop, "a first attempt's 409 is final")
        #expect(judge(.status(409), code: "upload_in_progress", .put, attempt: 2) == .retry(after: 0.5))
        #expect(judge(.status(409), code: "object_missing", .commit, attempt: 2) == .stop)
    }

    @Test("Retries stop when attempts, the time budget or the URL's life run out")
    func bounds() {
        #expect(judge(.status(503), .commit, attempt: 6) == .stop)
        #expect(judge(.status(503), retryAfter: 61, .commit) == .stop)
        #expect(judge(.status(503), .commit, budget: .elapsed(59.9)) == .stop)
        #expect(judge(.status(503), .put, budget: .urlSecondsLeft(5.2)) == .stop)
        #expect(judge(.status(503), .put, budget: .urlSecondsLeft(5.3)) == .retry(after: 0.25))
        #expect(policy.delay(afterAttempt: 10, random: 1) == 15, "the backoff is capped")
    }

    @Test("An error answer's JSON body, request ID header and Retry-After are read; a store's XML too")
    func errorBodies() throws {
        let url = try #require(URL(string: "http://127.0.0.1/x"))
        let headers = try #require(
            HTTPURLResponse(
                url: url, statusCode: 429, httpVersion: nil, headerFields: ["Retry-After": "7", "X-Request-Id": "abc"]))
        let json = StreamPreviewClientError(
            status: 429, request: "POST /x", headers: headers,
            body: Data(#"{"code":"rate_limited","message":"slow down","target":"","requestId":"r1"}"#.utf8))
        #expect(json.status == 429 && json.code == "rate_limited" && json.message == "slow down")
        #expect(json.requestId == "r1" && json.retryAfter == 7)
        let xml = StreamPreviewClientError(
            status: 503, request: "PUT of a", headers: headers,
            body: Data("<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>".utf8))
        #expect(xml.code == "SlowDown" && xml.message == "Reduce your rate" && xml.requestId == "abc")
        #expect(xml.description == "PUT of a failed: 503 SlowDown: Reduce your rate (request abc)")
    }
}

import Foundation
import ProtobufWire
import Testing

@testable import StreamPreviewClient

/// What the client reads from an error answer: the API's error body in either encoding, a
/// store's XML, or the status alone, with the request ID and `Retry-After`.
@Suite struct ErrorAnswerTests {
    static func answer(_ status: Int, _ body: String, headers: [String: String] = [:]) -> TransportResponse {
        TransportResponse(status: status, headers: headers, body: Data(body.utf8))
    }

    @Test func theAPIsJSONBodyRequestIDAndRetryAfterAreRead() {
        let error = StreamPreviewClientError(
            Self.answer(
                429, #"{"code":"rate_limited","message":"slow down","target":"","requestId":"r1"}"#,
                headers: ["Retry-After": "7", "X-Request-Id": "abc"]), request: "POST /x", now: 0)
        #expect(error.status == 429 && error.code == "rate_limited" && error.message == "slow down")
        #expect(error.requestId == "r1" && error.retryAfter == 7 && error.answerText == nil)
        #expect(error.isTransient)
    }

    @Test func theAPIsProtobufBodyIsReadWhenItsContentTypeSaysSo() {
        var writer = ProtoWriter()
        writer.writeString(field: 1, "object_missing")
        writer.writeString(field: 2, "the clip is not stored")
        writer.writeString(field: 3, "movie")
        writer.writeString(field: 4, "r2")
        let error = StreamPreviewClientError(
            TransportResponse(
                status: 409, headers: ["content-type": "application/x-protobuf"], body: Data(writer.bytes)),
            request: "POST /api/preview/commit", now: 0)
        #expect(error.code == "object_missing" && error.message == "the clip is not stored")
        #expect(error.target == "movie" && error.requestId == "r2" && !error.isTransient)
    }

    @Test func aStoresXMLErrorIsRead() {
        let error = StreamPreviewClientError(
            Self.answer(
                503, "<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>",
                headers: ["x-request-id": "abc"]), request: "PUT of a", now: 0)
        #expect(error.code == "SlowDown" && error.message == "Reduce your rate" && error.requestId == "abc")
        #expect(error.description == "PUT of a failed: 503 SlowDown: Reduce your rate (request abc)")
    }

    @Test func anAnswerWithoutAnErrorBodyKeepsItsTextOrItsStatusAlone() {
        let page = StreamPreviewClientError(Self.answer(502, "<html>Bad Gateway</html>"), request: "GET /x", now: 0)
        #expect(page.code == nil && page.answerText == "<html>Bad Gateway</html>")
        let bare = StreamPreviewClientError(Self.answer(412, ""), request: "PUT of a", now: 0)
        #expect(bare.code == nil && bare.answerText == nil && bare.retryAfter == nil && !bare.message.isEmpty)
    }

    @Test func aDatedRetryAfterIsReadAgainstTheClientsClock() {
        let error = StreamPreviewClientError(
            Self.answer(503, "", headers: ["Retry-After": "Thu, 01 Jan 1970 00:01:40 GMT"]), request: "GET /x",
            now: 90)
        #expect(error.retryAfter == 10)
    }
}

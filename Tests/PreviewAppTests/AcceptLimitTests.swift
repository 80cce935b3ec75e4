import PreviewCore
import Testing

@testable import PreviewApp
@testable import PreviewServer

/// An API request whose Accept is over the limits is refused before any work, with 400.
@Suite struct AcceptLimitTests {
    func request(accept: String) -> HTTPRequest {
        HTTPRequest(method: "GET", path: "/api/feed", headers: HTTPHeaders([("Accept", accept)]))
    }

    @Test func anAcceptOfMoreThan32RangesIs400BadRequest() throws {
        let header = Array(repeating: "text/html", count: 3000).joined(separator: ",") + ",application/json"
        #expect(throws: APIError.self) { try WireIO.requireAcceptableFormat(request(accept: header)) }
        do {
            try WireIO.requireAcceptableFormat(request(accept: header))
        } catch {
            #expect(error.code == .badRequest && error.status == 400 && error.target == "Accept")
            #expect(error.message == "the Accept header lists more than 32 media ranges or is over 2048 bytes")
        }
        #expect(WireIO.responseFormat(for: request(accept: header)) == .json, "the 400 itself is JSON")
    }

    @Test func anAcceptOf32RangesIsServed() throws {
        let header = Array(repeating: "text/html", count: 31).joined(separator: ",") + ",application/x-protobuf"
        try WireIO.requireAcceptableFormat(request(accept: header))
        #expect(WireIO.responseFormat(for: request(accept: header)) == .protobuf)
    }

    @Test func aNegotiationKeptOnTheRequestAnswersEveryLaterQuestionWithoutReadingAcceptAgain() throws {
        var kept = request(accept: "application/json")
        kept.negotiation = .format(.protobuf)
        try WireIO.requireAcceptableFormat(kept)
        #expect(WireIO.responseFormat(for: kept) == .protobuf)
        kept.negotiation = .notAcceptable
        #expect(throws: APIError.self) { try WireIO.requireAcceptableFormat(kept) }
    }

    @Test func theRouterNegotiatesOnceAndItsAnswerFollowsAccept() throws {
        let app = try AppHarness()
        let token = app.token("vera", .viewer)
        let answered = app.send("GET", "/api/feed", token: token, headers: [("Accept", "application/x-protobuf")])
        #expect(answered.status == 200)
        #expect(answered.headers["Content-Type"] == "application/x-protobuf")
        let refused = app.send("GET", "/api/feed", token: token, headers: [("Accept", "text/html")])
        #expect(refused.status == 406)
        #expect(refused.headers["Content-Type"] == "application/json")
    }
}
